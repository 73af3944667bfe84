;;; mce.scm -- the meta-circular evaluator of DMCI, written in the subset it interprets.
;;;
;;; It is compiled once to a ComputeGraph. A program then arrives as data,
;;; expanded to core forms (dmci/mce/Mce.cpp builds it):
;;;   a number                               a literal: itself, a differentiable leaf
;;;   (%quote . datum)                       a quoted constant
;;;   (%local name . address)                a variable the program binds: address names its frame and slot
;;;   (%ref . name)                          a name the program does not bind: a primitive, or unbound
;;;   (%if test then else)
;;;   (%lambda params rest? body name)        or (... name hidden): hidden, a symbol, counts the
;;;                                          leading parameters lower/Control.h added (for %check-arity)
;;;   (%app operator operand ...)
;;;   (%begin e ...)
;;;   (%let names inits body)
;;;   (%letrec names inits body)             letrec*: a frame of write-once boxes
;;;
;;; It is an analysing evaluator (SICP 4.1.7): `analyse` walks an expression
;;; once and returns a procedure of the run-time environment. Dispatch on the
;;; form and the lexical address of every variable are settled then, not at
;;; every evaluation.
;;;   environment  a list of frames, innermost first; a frame holds values (a
;;;                lambda's arguments, a let's values) or boxes (a letrec*'s
;;;                variables): a list when it has at most 4 slots (a call's
;;;                argument list as it comes), else a vector
;;; A variable's address, (depth index boxed? vector?), is resolved once,
;;; before the program is data: Mce.cpp knows every binder's frame and slot
;;; (and the same 4-slot rule) and writes the address on the reference node,
;;; and %address reads it back in constant time. So neither analysis nor
;;; evaluation scans names, and a reference costs one primitive step however
;;; many variables its frame holds (a vector-ref, or a list-ref of at most 4):
;;; a program of N top-level definitions (one letrec* frame) runs in time
;;; linear in N. The depth is the lexical nesting between the reference and
;;; its binder: depths 0 to 2 are read by fixed car/cdr steps, deeper frames
;;; by list-ref.
;;; An interpreted procedure is a host procedure, so primitives, apply and the
;;; library procedures call it like any other. A primitive is applied by the
;;; engine's one primitive-apply operation, never by a test on its name.
;;; Free variables: program and param-names (the seed's names). The value is
;;; the analysed program, a procedure of the seed's values: the engine
;;; analyses a program once and calls that procedure for every evaluation.

;; The run-time procedure for expression e.
(define (analyse e)
  (if (pair? e)
      (let ((tag (car e)))
        (cond ((eq? tag '%local) (analyse-local e))
              ((eq? tag '%app) (analyse-application e))
              ((eq? tag '%ref) (analyse-free e))
              ((eq? tag '%if) (analyse-if (cdr e)))
              ((eq? tag '%lambda) (analyse-lambda e))
              ((eq? tag '%let) (analyse-let (cdr e)))
              ((eq? tag '%letrec) (analyse-letrec (cdr e)))
              ((eq? tag '%begin) (analyse-sequence (map-analyse (cdr e))))
              (else (constant (cdr e)))))
      (constant e)))

;; A constant: numbers here are the program's literals, leaves of the tape.
(define (constant v)
  (lambda (env) v))

;; The run-time procedures of a list of expressions.
(define (map-analyse es)
  (if (null? es)
      '()
      (cons (analyse (car es)) (map-analyse (cdr es)))))

;; The values of analysed expressions, left to right.
(define (run-list ps env)
  (if (null? ps)
      '()
      (let ((v ((car ps) env)))
        (cons v (run-list (cdr ps) env)))))

;; A variable the program binds, at the address written on its node.
(define (analyse-local node)
  (let ((address (%address node)))
    (access (car address) (cadr address) (caddr address) (car (cdddr address)) node)))

;; A free name: a primitive, else an error when evaluated.
(define (analyse-free node)
  (if (%primitive node)
      (constant (%primitive node))
      (lambda (env) (%global node))))

;; The procedure reading the variable at depth and index, unboxing a letrec* variable.
(define (access depth index boxed? vector? node)
  (let ((get (if vector? (vector-accessor depth index) (list-accessor depth index))))
    (if boxed?
        (lambda (env) (%box-ref (get env) node))
        get)))

;; The procedure reading slot index of the vector frame depth frames out.
(define (vector-accessor depth index)
  (cond ((= depth 0) (lambda (env) (vector-ref (car env) index)))
        ((= depth 1) (lambda (env) (vector-ref (cadr env) index)))
        ((= depth 2) (lambda (env) (vector-ref (caddr env) index)))
        (else (lambda (env) (vector-ref (list-ref env depth) index)))))

;; The procedure reading slot index (0 to 3) of the list frame depth frames out.
(define (list-accessor depth index)
  (cond ((and (= depth 0) (= index 0)) (lambda (env) (caar env)))
        ((= depth 0) (lambda (env) (list-ref (car env) index)))
        ((= depth 1) (lambda (env) (list-ref (cadr env) index)))
        ((= depth 2) (lambda (env) (list-ref (caddr env) index)))
        (else (lambda (env) (list-ref (list-ref env depth) index)))))

;; A frame of these slots: a list of at most 4 (as Mce.cpp's addresses expect), else a vector.
(define (frame values long?)
  (if long? (list->vector values) values))

;; Whether a frame of these names is long: more than 4 slots, a vector.
(define (long? names)
  (> (length names) 4))

;; (if test then else): only #f is false.
(define (analyse-if e)
  (let ((test (analyse (car e)))
        (then (analyse (cadr e)))
        (else (analyse (caddr e))))
    (lambda (env) (if (test env) (then env) (else env)))))

;; An application: operator, then operands left to right, then the call,
;; with %at naming the user's expression for any error the call raises.
(define (analyse-application e)
  (let ((f (analyse (cadr e)))
        (args (map-analyse (cddr e))))
    (cond ((null? args)
           (lambda (env) (let ((p (f env))) (%at e) (p))))
          ((null? (cdr args))
           (let ((a (car args)))
             (lambda (env) (let ((p (f env)) (x (a env))) (%at e) (p x)))))
          ((null? (cddr args))
           (let ((a (car args)) (b (cadr args)))
             (lambda (env) (let ((p (f env)) (x (a env)) (y (b env))) (%at e) (p x y)))))
          ((null? (cdddr args))
           (let ((a (car args)) (b (cadr args)) (c (caddr args)))
             (lambda (env) (let ((p (f env)) (x (a env)) (y (b env)) (z (c env))) (%at e) (p x y z)))))
          (else
           (lambda (env) (let ((p (f env)) (xs (run-list args env))) (%at e) (apply p xs)))))))

;; A lambda: a host procedure that checks its arity, then runs the body in a new frame
;; (a short one is the argument list itself).
(define (analyse-lambda e)
  (let ((params (cadr e))
        (rest? (caddr e))
        (body (analyse (car (cdddr e)))))
    (let ((long (long? params)))
      (cond ((and rest? long)
             (lambda (env)
               (lambda args
                 (%check-arity e args)
                 (body (cons (list->vector (bind-rest params args)) env)))))
            (rest?
             (lambda (env)
               (lambda args
                 (%check-arity e args)
                 (body (cons (bind-rest params args) env)))))
            (long
             (lambda (env)
               (lambda args
                 (%check-arity e args)
                 (body (cons (list->vector args) env)))))
            (else
             (lambda (env)
               (lambda args
                 (%check-arity e args)
                 (body (cons args env)))))))))

;; A variadic procedure's frame: the fixed arguments, then the rest as one list.
(define (bind-rest params args)
  (if (null? (cdr params))
      (list args)
      (cons (car args) (bind-rest (cdr params) (cdr args)))))

;; (let names inits body): inits in the outer environment, the body in a new frame.
(define (analyse-let e)
  (let ((inits (map-analyse (cadr e)))
        (body (analyse (caddr e)))
        (long (long? (car e))))
    (if long
        (lambda (env) (body (cons (list->vector (run-list inits env)) env)))
        (lambda (env) (body (cons (run-list inits env) env))))))

;; (letrec* names inits body): a frame of boxes, initialised in order, then the body.
(define (analyse-letrec e)
  (let ((names (car e))
        (inits (map-analyse (cadr e)))
        (body (analyse (caddr e)))
        (long (long? (car e))))
    (lambda (env)
      (let ((boxes (make-boxes names)))
        (let ((env2 (cons (frame boxes long) env)))
          (initialise boxes inits env2)
          (body env2))))))

;; One fresh write-once box per name.
(define (make-boxes names)
  (if (null? names)
      '()
      (cons (%box-new) (make-boxes (cdr names)))))

;; Writes each init's value into its box, in order.
(define (initialise boxes inits env)
  (if (null? boxes)
      #t
      (begin (%box-set! (car boxes) ((car inits) env))
             (initialise (cdr boxes) (cdr inits) env))))

;; A sequence: each in turn, the last in tail position.
(define (analyse-sequence ps)
  (if (null? (cdr ps))
      (car ps)
      (let ((first (car ps))
            (rest (analyse-sequence (cdr ps))))
        (lambda (env) (first env) (rest env)))))

;; The analysed program: a procedure of the seed's values, its free variables
;; (the frame's layout chosen once, here, not at every call).
(let ((run (analyse program)))
  (if (long? param-names)
      (lambda (param-values) (run (list (list->vector param-values))))
      (lambda (param-values) (run (list param-values)))))

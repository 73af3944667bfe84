;;; mce.scm -- the meta-circular evaluator of DMCI, written in the subset it interprets.
;;;
;;; It is compiled once to a ComputeGraph. A program then arrives as data,
;;; expanded to core forms (dmci/mce/Mce.cpp builds it):
;;;   a number                               a literal: itself, a differentiable leaf
;;;   (%quote . datum)                       a quoted constant
;;;   (%ref . name)                          a variable reference
;;;   (%if test then else)
;;;   (%lambda params rest? body name)        or (... name hidden): hidden, a symbol, counts the
;;;                                          leading parameters lower/Control.h added (for %check-arity)
;;;   (%app operator operand ...)
;;;   (%begin e ...)
;;;   (%let names inits body)
;;;   (%letrec names inits body)             letrec*: a frame of write-once boxes
;;;
;;; It is an analysing evaluator (SICP 4.1.7): `analyse` walks an expression
;;; once, with the static scope, and returns a procedure of the run-time
;;; environment. Dispatch on the form and the lexical address of every
;;; variable are settled then, not at every evaluation.
;;;   scope        a list of frames (boxed? . names), innermost first
;;;   environment  a list of frames, each the list of values (or boxes)
;;; An interpreted procedure is a host procedure, so primitives, apply and the
;;; library procedures call it like any other. A primitive is applied by the
;;; engine's one primitive-apply operation, never by a test on its name.
;;; Free variables: program and param-names (the seed's names). The value is
;;; the analysed program, a procedure of the seed's values: the engine
;;; analyses a program once and calls that procedure for every evaluation.

;; The run-time procedure for expression e in scope.
(define (analyse e scope)
  (if (pair? e)
      (let ((tag (car e)))
        (cond ((eq? tag '%ref) (analyse-ref (cdr e) scope e))
              ((eq? tag '%app) (analyse-application e scope))
              ((eq? tag '%if) (analyse-if (cdr e) scope))
              ((eq? tag '%lambda) (analyse-lambda e scope))
              ((eq? tag '%let) (analyse-let (cdr e) scope))
              ((eq? tag '%letrec) (analyse-letrec (cdr e) scope))
              ((eq? tag '%begin) (analyse-sequence (map-analyse (cdr e) scope)))
              (else (constant (cdr e)))))
      (constant e)))

;; A constant: numbers here are the program's literals, leaves of the tape.
(define (constant v)
  (lambda (env) v))

;; The run-time procedures of a list of expressions.
(define (map-analyse es scope)
  (if (null? es)
      '()
      (cons (analyse (car es) scope) (map-analyse (cdr es) scope))))

;; The values of analysed expressions, left to right.
(define (run-list ps env)
  (if (null? ps)
      '()
      (let ((v ((car ps) env)))
        (cons v (run-list (cdr ps) env)))))

;; A variable: its lexical address, else a primitive, else an error when evaluated.
(define (analyse-ref name scope node)
  (let ((address (locate name scope 0)))
    (cond (address (access (car address) (cadr address) (caddr address) node))
          ((%primitive node) (constant (%primitive node)))
          (else (lambda (env) (%global node))))))

;; (depth index boxed?) of name in scope, or #f.
(define (locate name scope depth)
  (if (null? scope)
      #f
      (let ((index (position name (cdar scope) 0)))
        (if index
            (list depth index (caar scope))
            (locate name (cdr scope) (+ depth 1))))))

;; The index of name in names, or #f.
(define (position name names i)
  (cond ((null? names) #f)
        ((eq? name (car names)) i)
        (else (position name (cdr names) (+ i 1)))))

;; The procedure reading the variable at depth and index, unboxing a letrec* variable.
(define (access depth index boxed? node)
  (let ((get (frame-accessor depth index)))
    (if boxed?
        (lambda (env) (%box-ref (get env) node))
        get)))

;; The procedure reading a frame's variable (lists are the frames).

(define (frame-accessor depth index)
  (cond ((and (= depth 0) (= index 0)) (lambda (env) (caar env)))
        ((= depth 0) (lambda (env) (list-ref (car env) index)))
        (else (lambda (env) (list-ref (list-ref env depth) index)))))

;; (if test then else): only #f is false.
(define (analyse-if e scope)
  (let ((test (analyse (car e) scope))
        (then (analyse (cadr e) scope))
        (else (analyse (caddr e) scope)))
    (lambda (env) (if (test env) (then env) (else env)))))

;; An application: operator, then operands left to right, then the call,
;; with %at naming the user's expression for any error the call raises.
(define (analyse-application e scope)
  (let ((f (analyse (cadr e) scope))
        (args (map-analyse (cddr e) scope)))
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

;; A lambda: a host procedure that checks its arity, then runs the body in a new frame.
(define (analyse-lambda e scope)
  (let ((params (cadr e))
        (rest? (caddr e)))
    (let ((body (analyse (car (cdddr e)) (cons (cons #f params) scope))))
      (if rest?
          (lambda (env)
            (lambda args
              (%check-arity e args)
              (body (cons (bind-rest params args) env))))
          (lambda (env)
            (lambda args
              (%check-arity e args)
              (body (cons args env))))))))

;; A variadic procedure's frame: the fixed arguments, then the rest as one list.
(define (bind-rest params args)
  (if (null? (cdr params))
      (list args)
      (cons (car args) (bind-rest (cdr params) (cdr args)))))

;; (let names inits body): inits in the outer environment, the body in a new frame.
(define (analyse-let e scope)
  (let ((inits (map-analyse (cadr e) scope))
        (body (analyse (caddr e) (cons (cons #f (car e)) scope))))
    (lambda (env) (body (cons (run-list inits env) env)))))

;; (letrec* names inits body): a frame of boxes, initialised in order, then the body.
(define (analyse-letrec e scope)
  (let ((inner (cons (cons #t (car e)) scope))
        (names (car e)))
    (let ((inits (map-analyse (cadr e) inner))
          (body (analyse (caddr e) inner)))
      (lambda (env)
        (let ((env2 (cons (make-boxes names) env)))
          (initialise (car env2) inits env2)
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

;; The analysed program: a procedure of the seed's values, its free variables.
(let ((run (analyse program (list (cons #f param-names)))))
  (lambda (param-values) (run (list param-values))))

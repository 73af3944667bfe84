;;; mce.scm -- the meta-circular evaluator of DMCI, written in the subset it interprets.
;;;
;;; It is compiled once to a ComputeGraph. A program then arrives as data,
;;; expanded to core forms (dmci/mce/ProgramData.cpp builds it):
;;;   a number                               a literal: itself, a differentiable leaf
;;;   (%quote . datum)                       a quoted constant
;;;   (%ref . name)                          a variable reference
;;;   (%if test then else)
;;;   (%lambda params rest? body name)
;;;   (%app operator operand ...)
;;;   (%begin e ...)
;;;   (%let names inits body)
;;;   (%letrec names inits body)             letrec*: a frame of write-once boxes
;;; An environment is a list of frames, a frame a pair (names . values).
;;; An interpreted procedure is a host procedure, so primitives, apply and the
;;; library procedures call it like any other; a primitive is applied by the
;;; engine's one primitive-apply operation (apply), never by a test on its name.
;;; Free variables: program, param-names, param-values (the seed).

;; The value of expression e in environment env.
(define (evaluate e env)
  (if (pair? e)
      (let ((tag (car e)))
        (cond ((eq? tag '%ref) (lookup (cdr e) env e))
              ((eq? tag '%app) (evaluate-application e env))
              ((eq? tag '%if) (evaluate-if (cdr e) env))
              ((eq? tag '%lambda) (make-procedure e env))
              ((eq? tag '%let) (evaluate-let (cdr e) env))
              ((eq? tag '%letrec) (evaluate-letrec (cdr e) env))
              ((eq? tag '%begin) (evaluate-sequence (cdr e) env))
              (else (cdr e))))
      e))

;; (if test then else): only #f is false.
(define (evaluate-if e env)
  (if (evaluate (car e) env)
      (evaluate (cadr e) env)
      (evaluate (caddr e) env)))

;; An application: operator, then operands left to right, then apply.
(define (evaluate-application e env)
  (let ((f (evaluate (cadr e) env))
        (args (evaluate-list (cddr e) env)))
    (%at e)
    (apply f args)))

;; The values of a list of expressions, left to right.
(define (evaluate-list es env)
  (if (null? es)
      '()
      (let ((v (evaluate (car es) env)))
        (cons v (evaluate-list (cdr es) env)))))

;; A sequence: each expression in turn, the last in tail position.
(define (evaluate-sequence es env)
  (if (null? (cdr es))
      (evaluate (car es) env)
      (begin (evaluate (car es) env)
             (evaluate-sequence (cdr es) env))))

;; A variable: the innermost frame that binds it, else a primitive.
(define (lookup name env node)
  (if (null? env)
      (%global node)
      (let ((hit (frame-ref name (caar env) (cdar env))))
        (if (null? hit)
            (lookup name (cdr env) node)
            (let ((v (car hit)))
              (if (%box? v) (%box-ref v name) v))))))

;; The tail of vals whose car is name's value, or () when names lacks name.
(define (frame-ref name names vals)
  (cond ((null? names) '())
        ((eq? name (car names)) vals)
        (else (frame-ref name (cdr names) (cdr vals)))))

;; A lambda: a host procedure that checks its arity, then runs the body in a new frame.
(define (make-procedure e env)
  (let ((params (cadr e))
        (rest? (caddr e))
        (body (car (cdddr e))))
    (lambda args
      (%check-arity e args)
      (evaluate body (cons (cons params (if rest? (bind-rest params args) args)) env)))))

;; A variadic procedure's frame values: the fixed arguments, then the rest as one list.
(define (bind-rest params args)
  (if (null? (cdr params))
      (list args)
      (cons (car args) (bind-rest (cdr params) (cdr args)))))

;; (let names inits body): inits in the outer environment, the body in a new frame.
(define (evaluate-let e env)
  (evaluate (caddr e) (cons (cons (car e) (evaluate-list (cadr e) env)) env)))

;; (letrec* names inits body): boxes first, initialised in order, then the body.
(define (evaluate-letrec e env)
  (let ((inner (cons (cons (car e) (make-boxes (car e))) env)))
    (initialise (cdar inner) (cadr e) inner)
    (evaluate (caddr e) inner)))

;; One fresh write-once box per name.
(define (make-boxes names)
  (if (null? names)
      '()
      (cons (%box-new) (make-boxes (cdr names)))))

;; Writes each init's value into its box, in order.
(define (initialise boxes inits env)
  (if (null? boxes)
      #t
      (begin (%box-set! (car boxes) (evaluate (car inits) env))
             (initialise (cdr boxes) (cdr inits) env))))

;; The program's value, its free variables bound from the seed.
(evaluate program (list (cons param-names param-values)))

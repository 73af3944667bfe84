;;; lantern.scm -- reverse mode by delimited continuations, written in the language itself (Wang et al.,
;;; "Demystifying Differentiable Programming: Shift/Reset the Penultimate Backpropagator").
;;;
;;; A dual number is a fresh cell (tag serial . value): eq? tells two apart, so it has an identity without a
;;; mutable field. Each differentiable operation makes its result's dual, then `shift`s to the rest of the
;;; computation, which returns an answer (value . adjoints). The operation reads its result's adjoint from
;;; the adjoints, adds that times its local partials to its arguments' and returns the new answer: adjoints
;;; are accumulated functionally, on the way back, and there is no tape. dmci/lantern/Lantern.h rebinds a
;;; program's primitives to the %l- procedures here.
;;;
;;; Serial numbers name the duals in creation order: the leaves (the program's parameters and literals) are
;;; 0, 1, ..., and each operation's result takes the next. They are threaded as state through the same
;;; continuations (an operation's shift returns a procedure of the next serial), so nothing is mutated.
;;; Adjoints are (trie . size): a binary trie over the serials [0, size), '() where a dual has no adjoint,
;;; grown by doubling. An update rebuilds one path, log(operations) cells, so the backward pass is
;;; O(n log n) in the operations, whatever the program keeps alive.

;; The tag of every dual: a cell of its own, so nothing else is eq? to it.
(define %l-tag (list 'dual))

;; A new dual of value x with this serial.
(define (%l-dual serial x) (cons %l-tag (cons serial x)))

(define (%l-dual? v) (and (pair? v) (eq? (car v) %l-tag)))
(define (%l-serial d) (cadr d))

;; The number inside v (v itself when it is not a dual).
(define (%l-primal v) (if (%l-dual? v) (cddr v) v))

(define (%l-primals vs)
  (if (null? vs) '() (cons (%l-primal (car vs)) (%l-primals (cdr vs)))))

(define (%l-any-dual? vs)
  (cond ((null? vs) #f) ((%l-dual? (car vs)) #t) (else (%l-any-dual? (cdr vs)))))

;; Leaf i of the program (a parameter or a literal) with value x.
(define (%l-leaf i x) (%l-dual i x))

;; --- adjoints: (trie . size), never mutated ---

;; The trie t over [0, size) with g added at i.
(define (%l-trie-add t size i g)
  (if (= size 1)
      (if (null? t) g (+ t g))
      (let ((half (quotient size 2))
            (l (if (null? t) '() (car t)))
            (r (if (null? t) '() (cdr t))))
        (if (< i half)
            (cons (%l-trie-add l half i g) r)
            (cons l (%l-trie-add r half (- i half) g))))))

;; The entry at i of t over [0, size), or '().
(define (%l-trie-ref t size i)
  (cond ((null? t) '())
        ((= size 1) t)
        (else (let ((half (quotient size 2)))
                (if (< i half) (%l-trie-ref (car t) half i) (%l-trie-ref (cdr t) half (- i half)))))))

;; adjoints with g added to d's adjoint (unchanged when d is not a dual).
(define (%l-add adjoints d g)
  (if (%l-dual? d) (%l-add-at (car adjoints) (cdr adjoints) (%l-serial d) g) adjoints))

;; (trie . size) with g added at i, the trie doubled until i is in it.
(define (%l-add-at t size i g)
  (if (< i size)
      (cons (%l-trie-add t size i g) size)
      (%l-add-at (if (null? t) '() (cons t '())) (* 2 size) i g)))

;; d's adjoint, or '() when it has none.
(define (%l-adjoint adjoints d)
  (if (< (%l-serial d) (cdr adjoints)) (%l-trie-ref (car adjoints) (cdr adjoints) (%l-serial d)) '()))

;; Each argument's adjoint plus ybar times its partial, left to right.
(define (%l-propagate adjoints args partials ybar)
  (if (null? args)
      adjoints
      (%l-propagate (%l-add adjoints (car args) (* ybar (car partials))) (cdr args) (cdr partials) ybar)))

;; --- the backpropagator ---

;; The result `value` of an operation on args with local partials (one per argument): a dual when any
;; argument is one, whose adjoint the rest of the computation returns and this sends back to the arguments.
(define (%l-result value args partials)
  (if (%l-any-dual? args)
      (shift k
        (lambda (serial)
          (let* ((y (%l-dual serial value))
                 (answer ((k y) (+ serial 1)))
                 (ybar (%l-adjoint (cdr answer) y)))
            (if (null? ybar)
                answer
                (cons (car answer) (%l-propagate (cdr answer) args partials ybar))))))
      value))

;; Runs (f) under reset with n leaves: (value . adjoints) of its number, seeded with adjoint 1.
(define (%l-run f n)
  ((reset (let ((out (f)))
            (lambda (serial)
              (cons (%l-primal out) (%l-add (cons '() 1) out 1)))))
   n))

;; --- arithmetic: the engines' rules, folded left as the engines fold ---

(define (%l-add2 a b) (%l-result (+ (%l-primal a) (%l-primal b)) (list a b) '(1 1)))
(define (%l-sub2 a b) (%l-result (- (%l-primal a) (%l-primal b)) (list a b) '(1 -1)))
(define (%l-mul2 a b)
  (%l-result (* (%l-primal a) (%l-primal b)) (list a b) (list (%l-primal b) (%l-primal a))))
(define (%l-div2 a b)
  (let* ((x (%l-primal a)) (z (%l-primal b)) (q (/ x z)))
    (%l-result q (list a b) (list (/ 1 z) (- (/ q z))))))

(define (%l-fold op acc xs)
  (if (null? xs) acc (%l-fold op (op acc (car xs)) (cdr xs))))

(define (%l-+ . xs) (if (null? xs) 0 (%l-fold %l-add2 (car xs) (cdr xs))))
(define (%l-* . xs) (if (null? xs) 1 (%l-fold %l-mul2 (car xs) (cdr xs))))
(define (%l-- x . xs)
  (if (null? xs) (%l-result (- (%l-primal x)) (list x) '(-1)) (%l-fold %l-sub2 x xs)))
(define (%l-/ x . xs)
  (if (null? xs)
      (let ((r (/ 1 (%l-primal x)))) (%l-result r (list x) (list (- (* r r)))))
      (%l-fold %l-div2 x xs)))

;; min and max: the selected argument itself (ties keep the leftmost; NaN wins), as the engines select.
(define (%l-select better x xs)
  (cond ((null? xs) x)
        ((let ((b (%l-primal x)) (c (%l-primal (car xs))))
           (and (not (%l-nan? b)) (or (%l-nan? c) (better c b))))
         (%l-select better (car xs) (cdr xs)))
        (else (%l-select better x (cdr xs)))))
(define (%l-nan? x) (not (= x x)))
(define (%l-min x . xs) (%l-select < x xs))
(define (%l-max x . xs) (%l-select > x xs))

;; --- elementary functions: the value by the engine's primitive, the partial by the rule's formula ---

(define (%l-unary f partial)
  (lambda (a)
    (let* ((x (%l-primal a)) (y (f x)))
      (if (%l-dual? a) (%l-result y (list a) (list (partial x y))) y))))

(define %l-abs (%l-unary abs (lambda (x y) (cond ((> x 0) 1) ((< x 0) -1) (else 0)))))
(define %l-square (%l-unary square (lambda (x y) (* 2 x))))
(define %l-exp (%l-unary exp (lambda (x y) y)))
(define %l-sqrt (%l-unary sqrt (lambda (x y) (/ 1 (* 2 y)))))
(define %l-sin (%l-unary sin (lambda (x y) (cos x))))
(define %l-cos (%l-unary cos (lambda (x y) (- (sin x)))))
(define %l-tan (%l-unary tan (lambda (x y) (+ 1 (* y y)))))
(define %l-asin (%l-unary asin (lambda (x y) (/ 1 (sqrt (* (- 1 x) (+ 1 x)))))))
(define %l-acos (%l-unary acos (lambda (x y) (- (/ 1 (sqrt (* (- 1 x) (+ 1 x))))))))
;; 1/cosh^2 x = 4e/(1 + e)^2 with e = exp(-2|x|): no overflow, no cancellation.
(define %l-tanh (%l-unary tanh (lambda (x y) (let ((e (exp (* -2 (abs x))))) (/ (* 4 e) (square (+ 1 e)))))))
(define %l-sigmoid (%l-unary sigmoid (lambda (x y) (* y (- 1 y)))))
(define %l-softplus (%l-unary softplus (lambda (x y) (sigmoid x))))

(define (%l-log a . base)
  (if (null? base)
      ((%l-unary log (lambda (x y) (/ 1 x))) a)
      (let* ((b (car base)) (x (%l-primal a)) (c (%l-primal b)) (y (log x c)) (lb (log c)))
        (%l-result y (list a b) (list (/ 1 (* x lb)) (- (/ y (* c lb))))))))

(define (%l-expt a b)
  (let* ((x (%l-primal a)) (p (%l-primal b)) (y (expt x p)))
    (%l-result y (list a b)
               (list (if (= p 0) 0 (* p (expt x (- p 1))))
                     (if (<= x 0) 0 (* y (log x)))))))

(define (%l-atan a . xs)
  (if (null? xs)
      ((%l-unary atan (lambda (x y) (/ 1 (+ 1 (* x x))))) a)
      (let* ((b (car xs)) (y (%l-primal a)) (x (%l-primal b)) (r (+ (* x x) (* y y))))
        (%l-result (atan y x) (list a b) (list (/ x r) (- (/ y r)))))))

;; --- what only looks at numbers: their primal values, with no adjoint (integer rounding, tests) ---

(define (%l-on-primals f) (lambda xs (apply f (%l-primals xs))))

(define (%l-number? v) (or (%l-dual? v) (number? v)))
(define (%l-pair? v) (and (pair? v) (not (%l-dual? v))))
(define (%l-eqv? a b)
  (if (or (%l-dual? a) (%l-dual? b)) (eqv? (%l-primal a) (%l-primal b)) (eqv? a b)))
(define (%l-eq? a b)
  (if (or (%l-dual? a) (%l-dual? b)) (eqv? (%l-primal a) (%l-primal b)) (eq? a b)))
;; equal? on the values with every dual replaced by its number.
(define (%l-strip v)
  (cond ((%l-dual? v) (cddr v)) ((pair? v) (cons (%l-strip (car v)) (%l-strip (cdr v)))) (else v)))
(define (%l-equal? a b) (equal? (%l-strip a) (%l-strip b)))
(define (%l-list-ref l k) (list-ref l (%l-primal k)))
(define (%l-list-tail l k) (list-tail l (%l-primal k)))

;; A primitive the library does not differentiate: an error that says so, never a wrong gradient.
(define (%l-not-covered name)
  (lambda xs (error "lantern: this primitive is not covered by the continuation-based reverse mode:" name)))

;; Searches with the library's eqv? and equal?, so a dual finds its number.
(define (%l-memv x l) (cond ((null? l) #f) ((%l-eqv? x (car l)) l) (else (%l-memv x (cdr l)))))
(define (%l-memq x l) (cond ((null? l) #f) ((%l-eq? x (car l)) l) (else (%l-memq x (cdr l)))))
(define (%l-assv x l) (cond ((null? l) #f) ((%l-eqv? x (caar l)) (car l)) (else (%l-assv x (cdr l)))))
(define (%l-assq x l) (cond ((null? l) #f) ((%l-eq? x (caar l)) (car l)) (else (%l-assq x (cdr l)))))
(define (%l-member x l . compare) (member x l (if (null? compare) %l-equal? (car compare))))
(define (%l-assoc x l . compare) (assoc x l (if (null? compare) %l-equal? (car compare))))

;; (value adjoint ...) of a run's answer: the adjoint of each of its n leaves, in order (0 for none).
(define (%l-finish answer n)
  (let loop ((i (- n 1)) (out '()))
    (if (< i 0)
        (cons (car answer) out)
        (let ((g (%l-adjoint (cdr answer) (%l-leaf i 0))))
          (loop (- i 1) (cons (if (null? g) 0 g) out))))))

;;; lantern.scm -- reverse mode by delimited continuations, written in the language itself (Wang et al.,
;;; "Demystifying Differentiable Programming: Shift/Reset the Penultimate Backpropagator").
;;;
;;; A dual number is a fresh cell (tag serial . value): eq? tells two apart, so it has an identity without a
;;; mutable field. Each differentiable operation makes its result's dual, then `shift`s to the rest of the
;;; computation, which returns an answer (value . adjoints). The operation reads its result's adjoint from
;;; the adjoints, adds that times its local partials to its arguments' and returns the new answer: adjoints
;;; are accumulated functionally, on the way back, and there is no tape. A dual's number may be a tensor: its
;;; adjoint is then a tensor of its shape, summed with the engine's tensor +. dmci/lantern/Lantern.h rebinds a
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
;; The program's literals as leaves first, first + 1, ... in one vector (Lantern.cpp's Literals reads them).
(define (%l-literal-vector first values)
  (let loop ((k (- (vector-length values) 1)) (acc '()))
    (if (< k 0)
        (list->vector acc)
        (loop (- k 1) (cons (%l-leaf (+ first k) (vector-ref values k)) acc)))))

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

;; Each argument's adjoint plus ybar times its partial, left to right (ybar and a partial may be tensors: the
;; engine's * is elementwise, with a number broadcast).
(define (%l-propagate adjoints args partials ybar)
  (if (null? args)
      adjoints
      (%l-propagate (%l-add adjoints (car args) (%l-fit (car args) (* ybar (car partials))))
                    (cdr args) (cdr partials) ybar)))

;; g made the shape of d's adjoint: a number broadcast over a tensor gets the sum of the tensor's adjoint.
(define (%l-fit d g)
  (if (or (number? g) (not (number? (%l-primal d)))) g (vsum g)))

;; --- the backpropagator ---

;; The result `value` of an operation on args: a dual when any argument is one, whose adjoint the rest of the
;; computation returns and `back` (of the adjoints so far and ybar) sends on to the arguments.
(define (%l-capture value args back)
  (if (%l-any-dual? args)
      (shift k
        (lambda (serial)
          (let* ((y (%l-dual serial value))
                 (answer ((k y) (+ serial 1)))
                 (ybar (%l-adjoint (cdr answer) y)))
            (if (null? ybar)
                answer
                (cons (car answer) (back (cdr answer) ybar))))))
      value))

;; An operation with local partials (one per argument).
(define (%l-result value args partials)
  (%l-capture value args (lambda (adjoints ybar) (%l-propagate adjoints args partials ybar))))

;; A tensor operation, with backs: for each argument, a procedure of ybar that gives its adjoint's share ('() for
;; none), called only for an argument that is a dual.
(define (%l-result* value args backs)
  (%l-capture value args (lambda (adjoints ybar) (%l-send adjoints args backs ybar))))

(define (%l-send adjoints args backs ybar)
  (if (null? args)
      adjoints
      (%l-send (if (%l-dual? (car args))
                   (let ((g ((car backs) ybar)))
                     (if (null? g) adjoints (%l-add adjoints (car args) (%l-fit (car args) g))))
                   adjoints)
               (cdr args) (cdr backs) ybar)))

;; Runs (f) under reset with n leaves: (value . adjoints) of its value, seeded with adjoint 1 (a tensor value:
;; 1 in every entry, the gradient of the sum of its entries). The value is the program's own: a list or pair
;; holding duals (built inside a reset, say) comes back with each dual replaced by its number.
(define (%l-run f n)
  ((reset (let ((out (f)))
            (lambda (serial)
              (let ((v (%l-strip out)))
                (cons v (%l-add (cons '() 1) out (if (or (number? v) (not (%l-dual? out))) 1 (%l-fill v 1))))))))
   n))

;; --- arithmetic: the engines' rules, folded left as the engines fold ---

(define (%l-add2 a b) (%l-result (+ (%l-primal a) (%l-primal b)) (list a b) '(1 1)))
(define (%l-sub2 a b) (%l-result (- (%l-primal a) (%l-primal b)) (list a b) '(1 -1)))
(define (%l-mul2 a b)
  (%l-result (* (%l-primal a) (%l-primal b)) (list a b) (list (%l-primal b) (%l-primal a))))
(define (%l-div2 a b)
  (let* ((x (%l-primal a)) (z (%l-primal b)) (q (/ x z)))
    (%l-result q (list a b)
               (list (/ 1 z) (if (and (number? x) (number? z)) (- (/ q z)) (/ (- x) (* z z)))))))

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
;; phi x = e^(-x^2/2)/sqrt(2 pi).
(define %l-normal-cdf (%l-unary normal-cdf (lambda (x y) (* 0.39894228040143267794 (exp (* -0.5 x x))))))

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

;; --- tensors: a dual whose number is a tensor has a tensor adjoint of its shape, summed with the engine's +.
;; Each value comes from the engine's primitive on the primal tensors; each adjoint from the table's rule
;; (`dmci prims`), written with the engine's tensor primitives (the engine's own adjoint code is not used).

;; A vector is its own transpose (the same tensor); a matrix's transpose is a new one.
(define (%l-vector? t) (eq? (transpose t) t))

;; The shape of a tensor, (n) or (rows cols): the primitive reads it whatever the entries (a tensor times 0 would
;; not do: 0 times an infinite entry is NaN).
(define (%l-shape t) (shape t))

(define (%l-zeros-like t) (apply zeros (shape t)))

;; A tensor of t's shape with c in every entry.
(define (%l-fill t c) (+ (%l-zeros-like t) c))

(define (%l-iota n) (let loop ((i (- n 1)) (out '())) (if (< i 0) out (loop (- i 1) (cons i out)))))

;; The tensor of the shape (n) or (rows cols) whose entry at index is (f index...), built entry by entry.
(define (%l-tabulate shape f)
  (if (null? (cdr shape))
      (apply vec (map f (%l-iota (car shape))))
      (apply mat (map (lambda (i) (map (lambda (j) (f i j)) (%l-iota (cadr shape)))) (%l-iota (car shape))))))

;; (vec x ...): dx_k = dY_k.
(define (%l-vec . xs)
  (%l-result* (apply vec (%l-primals xs)) xs (map (lambda (k) (lambda (g) (ref g k))) (%l-iota (length xs)))))

;; (mat row ...), each row a list of numbers or a vector: d(row_i[j]) = dY_ij.
(define (%l-mat . rows)
  (let loop ((i 0) (rs rows) (primal-rows '()) (args '()) (backs '()))
    (if (null? rs)
        (%l-result* (apply mat (reverse primal-rows)) (reverse args) (reverse backs))
        (let ((row (car rs)))
          (if (%l-pair? row)
              (let entries ((j 0) (es row) (args args) (backs backs))
                (if (pair? es)
                    (entries (+ j 1) (cdr es) (cons (car es) args) (cons (lambda (g) (ref g i j)) backs))
                    (loop (+ i 1) (cdr rs) (cons (%l-primals row) primal-rows) args backs)))
              (loop (+ i 1) (cdr rs) (cons (%l-primal row) primal-rows) (cons row args)
                    (cons (lambda (g) (%l-tabulate (%l-shape (%l-primal row)) (lambda (j) (ref g i j)))) backs)))))))

;; (ref t i) / (ref t i j): dt = dy at the index, 0 elsewhere; the indices have no adjoint.
(define (%l-ref t . index)
  (let* ((p (%l-primal t)) (at (%l-primals index)))
    (%l-result* (apply ref p at) (list t)
                (list (lambda (g) (%l-tabulate (%l-shape p) (lambda ij (if (equal? ij at) g 0))))))))

;; (dot a b): da = dy·b, db = dy·a.
(define (%l-dot a b)
  (let ((x (%l-primal a)) (y (%l-primal b)))
    (%l-result* (dot x y) (list a b) (list (lambda (g) (scale g y)) (lambda (g) (scale g x))))))

;; (matvec A x): dA = dy·xᵀ, dx = Aᵀ·dy.
(define (%l-matvec a b)
  (let ((m (%l-primal a)) (x (%l-primal b)))
    (%l-result* (matvec m x) (list a b)
                (list (lambda (g) (outer g x)) (lambda (g) (matvec (transpose m) g))))))

;; (matmul A B): dA = dY·Bᵀ, dB = Aᵀ·dY.
(define (%l-matmul a b)
  (let ((x (%l-primal a)) (y (%l-primal b)))
    (%l-result* (matmul x y) (list a b)
                (list (lambda (g) (matmul g (transpose y))) (lambda (g) (matmul (transpose x) g))))))

;; (transpose A): dA = dYᵀ; a vector is returned unchanged, its dual too.
(define (%l-transpose a)
  (let ((x (%l-primal a)))
    (if (%l-vector? x) a (%l-result* (transpose x) (list a) (list transpose)))))

;; (outer a b): da = dY·b, db = dYᵀ·a.
(define (%l-outer a b)
  (let ((x (%l-primal a)) (y (%l-primal b)))
    (%l-result* (outer x y) (list a b)
                (list (lambda (g) (matvec g y)) (lambda (g) (matvec (transpose g) x))))))

;; (trace A): dA = dy·I.
(define (%l-trace a)
  (let ((x (%l-primal a)))
    (%l-result* (trace x) (list a) (list (lambda (g) (scale g (eye (car (%l-shape x)))))))))

;; (norm t): dt = dy·t/‖t‖, none at t = 0 (the subgradient 0).
(define (%l-norm a)
  (let* ((x (%l-primal a)) (y (norm x)))
    (%l-result* y (list a) (list (lambda (g) (if (= y 0) '() (scale (/ g y) x)))))))

;; (vsum t): dt = dy in every entry.
(define (%l-vsum a)
  (let ((x (%l-primal a)))
    (%l-result* (vsum x) (list a) (list (lambda (g) (%l-fill x g))))))

;; (scale s t): ds = Σ dY∘t, dt = s·dY.
(define (%l-scale a b)
  (let ((s (%l-primal a)) (t (%l-primal b)))
    (%l-result* (scale s t) (list a b) (list (lambda (g) (vsum (* g t))) (lambda (g) (scale s g))))))

;; (det A): dA = dy·adj(A)ᵀ.
(define (%l-det a)
  (let* ((x (%l-primal a)) (d (det x)))
    (%l-result* d (list a) (list (lambda (g) (scale g (transpose (%l-adjugate x d))))))))

;; The adjugate of the square matrix m with determinant d: by cofactors up to 4 x 4 or when d = 0, else
;; d·inv(m). (inv refuses a matrix singular to working precision, which may have d /= 0: cofactors need no
;; inverse, so below 5 x 5 no such matrix stops the route.)
(define (%l-adjugate m d)
  (let ((n (car (%l-shape m))))
    (cond ((= n 1) (mat '(1)))
          ((and (> n 4) (not (= d 0))) (scale d (inv m)))
          (else (%l-tabulate (list n n)
                             (lambda (i j)
                               (* (if (even? (+ i j)) 1 -1) (det (%l-minor m n j i)))))))))

;; m without row r and column c.
(define (%l-minor m n r c)
  (let ((keep (lambda (k) (filter (lambda (i) (not (= i k))) (%l-iota n)))))
    (apply mat (map (lambda (i) (map (lambda (j) (ref m i j)) (keep c))) (keep r)))))

;; (logdet A): dA = dy·inv(A)ᵀ, inv(A) = adj(A)/det(A) up to 4 x 4 (as det's rule, so that a matrix singular to
;; working precision does not stop the route).
(define (%l-logdet a)
  (let ((x (%l-primal a)))
    (%l-result* (logdet x) (list a)
                (list (lambda (g)
                        (if (> (car (%l-shape x)) 4)
                            (scale g (transpose (inv x)))
                            (let ((d (det x))) (scale (/ g d) (transpose (%l-adjugate x d))))))))))

;; (inv A): dA = -inv(A)ᵀ·dY·inv(A)ᵀ.
(define (%l-inv a)
  (let* ((x (%l-primal a)) (y (inv x)) (yt (transpose y)))
    (%l-result* y (list a) (list (lambda (g) (matmul (matmul (- yt) g) yt))))))

;; (solve A b): db = inv(A)ᵀ·dx, dA = -(inv(A)ᵀ·dx)·xᵀ.
(define (%l-solve a b)
  (let* ((m (%l-primal a)) (r (%l-primal b)) (x (solve m r)))
    (%l-result* x (list a b)
                (list (lambda (g)
                        (let ((h (solve (transpose m) g)))
                          (- (if (%l-vector? x) (outer h x) (matmul h (transpose x))))))
                      (lambda (g) (solve (transpose m) g))))))

;; (cholesky A) = L: dA = sym(L⁻ᵀ·Φ(Lᵀ·dL)·L⁻¹), Φ the lower triangle with its diagonal halved, dL's upper
;; zeros being constants (Murray 2016).
(define (%l-cholesky a)
  (let* ((x (%l-primal a)) (l (cholesky x)))
    (%l-result* l (list a)
                (list (lambda (g)
                        (let* ((shape (%l-shape l))
                               (lower (lambda (m half)
                                        (%l-tabulate shape
                                                     (lambda (i j)
                                                       (cond ((> i j) (ref m i j))
                                                             ((= i j) (* half (ref m i j)))
                                                             (else 0))))))
                               (p (lower (matmul (transpose l) (lower g 1)) 0.5))
                               (lt (transpose l))
                               (s (solve lt (transpose (solve lt (transpose p))))))
                          (scale 0.5 (+ s (transpose s)))))))))

;; --- what only looks at numbers: their primal values, with no adjoint (integer rounding, tests) ---

(define (%l-on-primals f) (lambda xs (apply f (%l-primals xs))))

(define (%l-number? v) (number? (%l-primal v)))
;; Exactness is the number's own (runtime/ExactValue.h), a dual's that of its primal: every literal is a dual here,
;; differentiated or not, so a literal keeps the exactness `dmci run` gives it. exact's and inexact's steps on a dual
;; are the identity on the tape, with the primal's mark changed; exact-integer-sqrt reads its argument's number.
(define (%l-exact? v) (exact? (%l-primal v)))
(define (%l-inexact? v) (inexact? (%l-primal v)))
(define (%l-exact-integer? v) (exact-integer? (%l-primal v)))
(define (%l-exact-mark v) (if (%l-dual? v) (%l-result (%exact-mark (%l-primal v)) (list v) '(1)) (%exact-mark v)))
(define (%l-inexact-mark v)
  (if (%l-dual? v) (%l-result (%inexact-mark (%l-primal v)) (list v) '(1)) (%inexact-mark v)))
(define (%l-exact-integer-sqrt-list n) (%exact-integer-sqrt-list (%l-primal n)))
(define (%l-pair? v) (and (pair? v) (not (%l-dual? v))))
(define (%l-eqv? a b)
  (if (or (%l-dual? a) (%l-dual? b)) (eqv? (%l-primal a) (%l-primal b)) (eqv? a b)))
(define (%l-eq? a b)
  (if (or (%l-dual? a) (%l-dual? b)) (eqv? (%l-primal a) (%l-primal b)) (eq? a b)))
;; equal? on the values with every dual replaced by its number.
(define (%l-strip v)
  (cond ((%l-dual? v) (cddr v))
        ((pair? v) (cons (%l-strip (car v)) (%l-strip (cdr v))))
        ((vector? v) (list->vector (%l-strip (vector->list v))))
        (else v)))
(define (%l-equal? a b) (equal? (%l-strip a) (%l-strip b)))
(define (%l-list-ref l k) (list-ref l (%l-primal k)))
(define (%l-list-tail l k) (list-tail l (%l-primal k)))
;; Vectors hold duals as they are; an index, a bound or a length is read as its number.
(define (%l-vector-ref v k) (vector-ref v (%l-primal k)))
(define (%l-vector->list v . bounds) (apply vector->list v (%l-primals bounds)))
(define (%l-vector-copy v . bounds) (apply vector-copy v (%l-primals bounds)))
(define (%l-vector-fill v x . bounds) (apply vector-fill v x (%l-primals bounds)))
(define (%l-make-vector k . fill) (apply make-vector (%l-primal k) fill))
;; vector-set! stores the dual as it is: its cell's next version carries the value and its adjoint's path.
(define (%l-vector-set! v k x) (vector-set! v (%l-primal k) x))
(define (%l-vector-fill! v x . bounds) (apply vector-fill! v x (%l-primals bounds)))
(define (%l-vector-copy! to at from . bounds) (apply vector-copy! to (%l-primal at) from (%l-primals bounds)))
(define (%l-string->vector s . bounds) (apply string->vector s (%l-primals bounds)))
(define (%l-vector->string v . bounds) (apply vector->string v (%l-primals bounds)))

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

; Quadratic form f(v) = v^T A v + b . v with a symmetric 3x3 A
(define A (mat '(2 0.5 0) '(0.5 1 -0.3) '(0 -0.3 3)))
(define b (vec 1 -2 0.5))
(define v (vec x1 x2 x3))
(+ (dot v (matvec A v)) (dot b v))

; trace of an outer product (= u . v) plus the bilinear form u^T M v computed as (M^T u) . v
(define u (vec x 1 2))
(define v (vec 3 y -1))
(define M (mat '(1 2 0) '(0 1 0) '(1 0 1)))
(+ (trace (outer u v)) (dot (matvec (transpose M) u) v))

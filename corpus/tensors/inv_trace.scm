; trace and entry sum of the inverse of a 2x2 matrix
(define A (mat (list a b) (list c d)))
(define Ainv (inv A))
(+ (trace Ainv) (* 0.5 (vsum Ainv)))

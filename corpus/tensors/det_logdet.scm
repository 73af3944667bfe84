; log det of a symmetric 2x2 and det of a 3x3 sharing parameters
(define M (mat (list a c) (list c d)))
(define N (mat (list 2 a 0) '(1 3 1) (list 0 c 4)))
(+ (logdet M) (* 0.1 (det N)))

; Euclidean norm of a scaled vector plus the Frobenius norm of an outer product
(define v (vec x 2 -1))
(+ (norm (scale s v)) (norm (outer v (vec 1 s))))

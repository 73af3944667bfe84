; Squares a vector of parameters with vector-map, scales it by a make-vector fill, sums it through vector->list
(define xs (vector x y 1.5))
(define sq (vector-map (lambda (v) (* v v)) xs))
(define scaled (vector-map * sq (make-vector 3 0.25)))
(+ (fold-left + 0.0 (vector->list scaled)) (vector-ref (list->vector (list x y)) 1))

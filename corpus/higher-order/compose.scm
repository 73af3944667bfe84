; Composition of a primitive with a closure: (compose sin scale) x = sin(alpha x)
(define (compose f g) (lambda (y) (f (g y))))
(define scale-by-alpha (lambda (y) (* alpha y)))
((compose sin scale-by-alpha) x)

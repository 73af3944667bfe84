; Composition f(g(x)) with f = exp and g(y) = alpha y + 1
(define (compose f g) (lambda (y) (f (g y))))
((compose exp (lambda (y) (+ (* alpha y) 1))) x)

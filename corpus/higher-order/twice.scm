; twice applied to a closure capturing alpha: f(f(x)) with f(y) = alpha y^2, i.e. alpha^3 x^4
(define (twice f) (lambda (y) (f (f y))))
((twice (lambda (y) (* alpha y y))) x)

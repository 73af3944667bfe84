; twice on a closure capturing alpha: alpha^3 x^4
(define (twice f) (lambda (y) (f (f y))))
((twice (lambda (y) (* alpha y y))) x)

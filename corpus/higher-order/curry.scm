; Currying a two-argument function and applying it one argument at a time: hypot(x, alpha)
(define (curry f) (lambda (a) (lambda (b) (f a b))))
(define (hypot a b) (sqrt (+ (* a a) (* b b))))
(((curry hypot) x) alpha)

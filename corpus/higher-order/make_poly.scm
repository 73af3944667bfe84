; A closure over polynomial coefficients: (make-poly a b c) evaluates a + b t + c t^2
(define (make-poly a b c)
  (lambda (t) (+ a (* t (+ b (* t c))))))
((make-poly alpha beta 1.5) x)

; A higher-order difference operator: central difference of f(y) = alpha y^3 with step 0.1
(define (deriv f h)
  (lambda (y) (/ (- (f (+ y h)) (f (- y h))) (* 2 h))))
((deriv (lambda (y) (* alpha y y y)) 0.1) x)

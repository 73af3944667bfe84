; A continuous piecewise-linear function by cond, at a breakpoint where the slope changes
(define (hat x)
  (cond ((< x 0) (* -2 x))
        ((< x 1) x)
        (else (- (* 3 x) 2))))
(hat x)

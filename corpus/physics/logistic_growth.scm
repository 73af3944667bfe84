; Closed-form logistic growth: P(t) = K / (1 + ((K - P0) / P0) exp(-r t))
(define (logistic capacity initial rate time)
  (/ capacity
     (+ 1 (* (/ (- capacity initial) initial) (exp (- (* rate time)))))))
(logistic K P0 r t)

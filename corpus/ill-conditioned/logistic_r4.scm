; The logistic map at r = 4 from x0 = sin^2(theta): x_n = sin^2(2^n theta) exactly, but every step doubles rounding error.
(define (logistic x n)
  (if (= n 0)
      x
      (logistic (* 4 x (- 1 x)) (- n 1))))
(logistic (square (sin theta)) 20)

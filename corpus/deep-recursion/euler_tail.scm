; Tail recursion of depth N: N forward-Euler steps of y' = -k y over [0, 1], i.e. y0 (1 - k/N)^N
(define (euler y n)
  (if (= n 0)
      y
      (euler (- y (* (/ 1 N) k y)) (- n 1))))
(euler y0 N)

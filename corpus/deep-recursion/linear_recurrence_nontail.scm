; Non-tail recursion of depth N: y(n) = a y(n-1) + 1, y(0) = y0
(define (y n)
  (if (= n 0)
      y0
      (+ (* a (y (- n 1))) 1)))
(y N)

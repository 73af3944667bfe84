; Non-tail recursion of depth N: sum_{k=1}^{N} x^2 / (k (k + 1)) = x^2 N / (N + 1)
(define (telescoping n)
  (if (= n 0)
      0
      (+ (/ (* x x) (* n (+ n 1))) (telescoping (- n 1)))))
(telescoping N)

; exp(x) by its Taylor series, summed by non-tail recursion over the terms x^k / k!, k = 0..30
(define (exp-series x k term)
  (if (> k 30)
      0
      (+ term (exp-series x (+ k 1) (/ (* term x) (+ k 1))))))
(exp-series x 0 1)

; log(1 + x) by the alternating series x - x^2/2 + x^3/3 - ..., 60 terms, tail recursion
(define (log1p-series x k power acc)
  (if (> k 60)
      acc
      (log1p-series x (+ k 1) (* power (- x)) (+ acc (/ power k)))))
(log1p-series x 1 x 0)

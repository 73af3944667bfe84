; Tail recursion of depth N: the partial product prod_{k=1}^{N} (1 + x / k^2)
(define (partial-product k acc)
  (if (> k N)
      acc
      (partial-product (+ k 1) (* acc (+ 1 (/ x (* k k)))))))
(partial-product 1 1)

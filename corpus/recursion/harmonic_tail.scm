; sum_{k=1}^{50} 1 / (k + x)^2 by tail recursion with an accumulator
(define (shifted-sum x k acc)
  (if (> k 50)
      acc
      (shifted-sum x (+ k 1) (+ acc (/ 1 (square (+ k x)))))))
(shifted-sum x 1 0)

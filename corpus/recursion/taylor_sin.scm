; sin(x) by its Taylor series, tail recursion with an accumulator, 25 terms
(define (sin-terms x k term acc)
  (if (= k 25)
      acc
      (sin-terms x
                 (+ k 1)
                 (/ (* -1 term x x) (* (+ (* 2 k) 2) (+ (* 2 k) 3)))
                 (+ acc term))))
(sin-terms x 0 x 0)

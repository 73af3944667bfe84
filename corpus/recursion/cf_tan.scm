; tan(x) by Lambert's continued fraction x/(1 - x^2/(3 - x^2/(5 - ...))), bottom-up by tail recursion
(define (lambert x k acc)
  (if (< k 0)
      (/ x acc)
      (lambert x (- k 1) (- (+ (* 2 k) 1) (/ (* x x) acc)))))
(lambert x 19 41)

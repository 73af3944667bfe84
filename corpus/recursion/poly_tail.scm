; sum_{k=0}^{8} x^k / (k + 1) by tail-recursive Horner from the top coefficient down
(define (horner-down x k acc)
  (if (< k 0)
      acc
      (horner-down x (- k 1) (+ (* acc x) (/ 1 (+ k 1))))))
(horner-down x 8 0)

; Index-weighted sum (weights 1, 2, 3, ...) of (reverse (append l1 l2))
(define l1 (list x (* 2 x)))
(define l2 (list alpha 1))
(define (index-weighted lst k)
  (if (null? lst)
      0
      (+ (* k (car lst)) (index-weighted (cdr lst) (+ k 1)))))
(index-weighted (reverse (append l1 l2)) 1)

; Sum of the three-point moving averages of a signal list, using list-ref, list-tail and length
(define signal (list x 2 (* x x) alpha 1.5 (- x)))
(define (window-mean lst)
  (/ (+ (list-ref lst 0) (list-ref lst 1) (list-ref lst 2)) 3))
(define (moving-sum lst)
  (if (< (length lst) 3)
      0
      (+ (window-mean lst) (moving-sum (list-tail lst 1)))))
(moving-sum signal)

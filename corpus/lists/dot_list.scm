; Dot product of two lists by recursion, plus the Euclidean norm of the first list
(define (dot-list a b)
  (if (null? a)
      0
      (+ (* (car a) (car b)) (dot-list (cdr a) (cdr b)))))
(define u (list x y 1.5))
(define v (list 2 -1 y))
(+ (dot-list u v) (sqrt (dot-list u u)))

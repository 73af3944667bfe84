; Mutual tail recursion of depth N (N even): even steps add x, odd steps multiply by r
(define (add-step n acc)
  (if (= n 0) acc (mul-step (- n 1) (+ acc x))))
(define (mul-step n acc)
  (if (= n 0) acc (add-step (- n 1) (* acc r))))
(add-step N 0)

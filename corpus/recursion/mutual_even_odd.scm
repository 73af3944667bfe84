; Mutual tail recursion in the style of even?/odd?: even steps multiply by x, odd steps add alpha
(define (even-step n v)
  (if (= n 0) v (odd-step (- n 1) (* v x))))
(define (odd-step n v)
  (if (= n 0) v (even-step (- n 1) (+ v alpha))))
(even-step 10 1)

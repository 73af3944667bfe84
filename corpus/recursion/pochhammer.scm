; Rising factorial (x)_n = x (x+1) ... (x+n-1) by non-tail recursion, n = 6
(define (rising x n)
  (if (= n 0)
      1
      (* (+ x (- n 1)) (rising x (- n 1)))))
(rising x 6)

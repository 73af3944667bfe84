; Non-tail mutual recursion: f(n) = x + g(n-1) / 2, g(n) = alpha f(n-1), f(0) = g(0) = 1
(define (f n)
  (if (= n 0) 1 (+ x (/ (g (- n 1)) 2))))
(define (g n)
  (if (= n 0) 1 (* alpha (f (- n 1)))))
(f 8)

; Continued fraction 1 + x/(2 + x/(2 + ...)) to depth N by non-tail recursion; converges to sqrt(1 + x)
(define (cf depth)
  (if (= depth 0)
      2
      (+ 2 (/ x (cf (- depth 1))))))
(+ 1 (/ x (cf N)))

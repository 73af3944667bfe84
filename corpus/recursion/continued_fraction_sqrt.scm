; sqrt(1 + x) as the continued fraction 1 + x/(2 + x/(2 + ...)), 40 levels by non-tail recursion
(define (cf-tail x depth)
  (if (= depth 0)
      2
      (+ 2 (/ x (cf-tail x (- depth 1))))))
(+ 1 (/ x (cf-tail x 40)))

; fold-left over a short list mixing parameters and literals: x^2 + alpha^2 + 0.25
(fold-left (lambda (acc v) (+ acc (* v v))) 0 (list x alpha 0.5))

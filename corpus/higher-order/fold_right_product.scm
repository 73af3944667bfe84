; A polynomial from its roots: fold-right * over (x - r) for r in a list
(define roots (list 0.5 r1 2))
(fold-right * 1 (map (lambda (r) (- x r)) roots))

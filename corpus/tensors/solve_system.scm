; Solve the 2x2 linear system A z = b; value: the sum of the solution's components
(define A (mat (list a 1) (list 2 d)))
(define b (vec b1 -1))
(vsum (solve A b))

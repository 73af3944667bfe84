; A tensor-valued program: inv(M) (1, b) for M = [[m 1] [1 2]]; the gradient is that of the sum of its entries
(define M (mat (list m 1) '(1 2)))
(matvec (inv M) (vec 1 b))

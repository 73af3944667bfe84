; A small tensor program: (x, 1) . M (x, alpha) with M = [[2 1] [0 3]]
(define M (mat '(2 1) '(0 3)))
(dot (vec x 1) (matvec M (vec x alpha)))

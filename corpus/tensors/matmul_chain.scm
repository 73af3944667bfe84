; Matrix-product chains: trace(A^3) + sum(A B A^T) for A = [[a 1] [0 a]], B = [[b 0] [0 1]]
(define A (mat (list a 1) (list 0 a)))
(define B (mat (list b 0) '(0 1)))
(+ (trace (matmul A (matmul A A)))
   (vsum (matmul (matmul A B) (transpose A))))

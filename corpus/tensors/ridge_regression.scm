; Ridge regression: w = (X^T X + lam I)^-1 X^T y; value: the penalised loss at the fit
(define X (mat '(1 0.5) '(1 -1) '(1 2) '(1 0)))
(define y (vec y1 0.3 2.1 0.9))
(define Xt (transpose X))
(define w (solve (+ (matmul Xt X) (scale lam (eye 2))) (matvec Xt y)))
(define r (- (matvec X w) y))
(+ (dot r r) (* lam (dot w w)))

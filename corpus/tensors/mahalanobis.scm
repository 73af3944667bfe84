; Mahalanobis distance through a Cholesky factor: |L^-1 (x - mu)| with Sigma = L L^T
(define Sigma (mat '(2 0.6) (list 0.6 s22)))
(define L (cholesky Sigma))
(norm (solve L (- (vec x1 x2) (vec 0.5 -1))))

; One scalar Kalman update written with 1x1 tensors: posterior mean plus log-likelihood
(define P (mat (list p)))
(define S (+ P (mat (list r))))
(define y (vec (- z m)))
(define K (solve S P))
(+ (+ m (ref (matvec K y) 0))
   (* -0.5 (+ (dot y (solve S y)) (logdet S))))

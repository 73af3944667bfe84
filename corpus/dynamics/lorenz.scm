; Lorenz system, forward Euler with dt = 0.005 for 80 steps from (1, 1, 1); value: x + y + z
(define dt 0.005)
(define (lorenz-step p)
  (let ((x (car p)) (y (cadr p)) (z (caddr p)))
    (list (+ x (* dt sigma (- y x)))
          (+ y (* dt (- (* x (- rho z)) y)))
          (+ z (* dt (- (* x y) (* beta z)))))))
(define final
  (do ((k 0 (+ k 1)) (p (list 1 1 1) (lorenz-step p)))
      ((= k 80) p)))
(apply + final)

; Damped pendulum theta'' = -(g/L) sin(theta) - gamma theta', semi-implicit Euler, 200 steps of 0.01 s
(define dt 0.01)
(loop ((k 0) (theta theta0) (omega 0))
  (if (= k 200)
      theta
      (let ((omega1 (+ omega (* dt (- (- (* (/ 9.81 len) (sin theta))) (* gamma omega))))))
        (recur (+ k 1) (+ theta (* dt omega1)) omega1))))

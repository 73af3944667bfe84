;; Euler steps of a pendulum: theta'' = -(g/l) sin theta.
(define (run theta omega n)
  (if (= n 0) theta
      (run (+ theta (* dt omega)) (- omega (* dt (/ g l) (sin theta))) (- n 1))))
(run theta0 0.0 50)

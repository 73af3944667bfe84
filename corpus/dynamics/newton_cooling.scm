; Newton's law of cooling dT/dt = -k (T - T_env), forward Euler with dt = 0.1 for 50 steps
(define dt 0.1)
(loop ((n 50) (temp T0))
  (if (= n 0)
      temp
      (recur (- n 1) (- temp (* k dt (- temp Tenv))))))

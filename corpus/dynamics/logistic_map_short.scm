; Logistic map in the chaotic regime, 12 steps with a named let: sensitivity to r and x0
(let iterate ((n 12) (x x0))
  (if (= n 0)
      x
      (iterate (- n 1) (* r x (- 1 x)))))

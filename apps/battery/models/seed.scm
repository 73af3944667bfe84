; The search's seed: the square-root law with literal constants, Q(t) = 1 - 0.15 sqrt(t), t = cycle / 100
(- 1.0 (* 0.15 (sqrt t)))

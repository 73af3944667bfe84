; Capacity fade, square-root law: Q(t) = q0 - b sqrt(t), t = cycle / 100
(- q0 (* b (sqrt t)))

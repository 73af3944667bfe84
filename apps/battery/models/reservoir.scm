; Capacity fade, two-reservoir minimum: Q(t) = q0 min(1 - a sqrt(t), 1 - c t), t = cycle / 100 (knee at (a/c)^2)
(* q0 (min (- 1 (* a (sqrt t))) (- 1 (* c t))))

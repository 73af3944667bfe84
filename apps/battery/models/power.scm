; Capacity fade, power law: Q(t) = q0 - b t^p, t = cycle / 100
(- q0 (* b (expt t p)))

; Capacity fade, stretched exponential: Q(t) = q0 exp(-(t / tau)^beta), t = cycle / 100
(* q0 (exp (- (expt (/ t tau) beta))))

; Radioactive decay by half-lives: N(t) = N0 (1/2)^(t / t_half)
(define (remaining n0 time half-life)
  (* n0 (expt 0.5 (/ time half-life))))
(remaining N0 t thalf)

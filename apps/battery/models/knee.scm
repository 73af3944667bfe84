; Capacity fade, square root plus a sigmoidal knee: after t0 a linear fade of slope d sets in along a sigmoid of
; width w, Q(t) = q0 - b sqrt(t) - d w softplus((t - t0) / w), t = cycle / 100
(- q0 (* b (sqrt t)) (* d w (softplus (/ (- t t0) w))))

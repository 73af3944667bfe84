; tanh across its range, saturated at both ends: d/dx = a sech^2(a x), which must not cancel to 0 early.
(tanh (* a x))

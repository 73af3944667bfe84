; Relativistic total energy with c = 1: E = m / sqrt(1 - v^2)
(define (lorentz-factor speed) (/ 1 (sqrt (- 1 (* speed speed)))))
(define (energy mass speed) (* mass (lorentz-factor speed)))
(energy m v)

; Position of an underdamped oscillator: x(t) = A exp(-gamma t) cos(omega t + phi)
(define (position amp gamma omega phi t)
  (* amp (exp (- (* gamma t))) (cos (+ (* omega t) phi))))
(position amp gamma omega phi t)

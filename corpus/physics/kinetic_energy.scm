; Kinetic energy of a point mass: E = m v^2 / 2
(define (kinetic-energy mass speed)
  (* 0.5 mass (square speed)))
(kinetic-energy m v)

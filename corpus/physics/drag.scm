; Quadratic aerodynamic drag force: F = rho Cd A v^2 / 2
(define (drag-force density coefficient area speed)
  (* 0.5 density coefficient area speed speed))
(drag-force rho cd area v)

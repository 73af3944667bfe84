; Terminal velocity of a falling body with quadratic drag: v = sqrt(2 m g / (rho Cd A))
(define (terminal-velocity mass density coefficient area)
  (sqrt (/ (* 2 mass 9.81) (* density coefficient area))))
(terminal-velocity m rho cd area)

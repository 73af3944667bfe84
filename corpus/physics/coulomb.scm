; Coulomb force between two point charges: F = k q1 q2 / r^2
(define (coulomb-force k qa qb dist)
  (/ (* k qa qb) (square dist)))
(coulomb-force k q1 q2 r)

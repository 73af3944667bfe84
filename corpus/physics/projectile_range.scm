; Range of a projectile launched over flat ground: R = v^2 sin(2 theta) / g
(define g 9.81)
(define (projectile-range speed angle)
  (/ (* (square speed) (sin (* 2 angle))) g))
(projectile-range v theta)

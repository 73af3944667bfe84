; Escape velocity from radius r of a body with gravitational parameter mu: v = sqrt(2 mu / r)
(define (escape-velocity gm radius)
  (sqrt (/ (* 2 gm) radius)))
(escape-velocity mu r)

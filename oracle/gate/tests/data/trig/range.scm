;; Horizontal range of a projectile: v^2 sin(2 theta) / g.
(/ (* v v (sin (* 2 theta))) g)

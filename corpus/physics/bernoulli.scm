; Bernoulli's equation along a streamline, solved for the downstream pressure
(define g 9.81)
(define (downstream-pressure p1 rho v1 v2 h1 h2)
  (+ p1
     (* 0.5 rho (- (square v1) (square v2)))
     (* rho g (- h1 h2))))
(downstream-pressure p1 rho v1 v2 h1 h2)

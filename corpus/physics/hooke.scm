; Elastic energy of a Hookean spring stretched from rest length L0 to L: U = k (L - L0)^2 / 2
(define (spring-energy stiffness len rest)
  (let ((stretch (- len rest)))
    (/ (* stiffness stretch stretch) 2)))
(spring-energy k L L0)

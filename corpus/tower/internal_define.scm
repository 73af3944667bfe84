; Internal defines and a variadic lambda inside a procedure body
(define (energy m v h)
  (define g 9.81)
  (define (sum . xs) (apply + xs))
  (sum (* 0.5 m v v) (* m g h)))
(energy m v h)

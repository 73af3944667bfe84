; Cube root of a by Newton's iteration g <- (2 g + a / g^2) / 3, 60 steps from g = 1
(define (cbrt-step a g) (/ (+ (* 2 g) (/ a (* g g))) 3))
(define (newton-cbrt a g n)
  (if (= n 0) g (newton-cbrt a (cbrt-step a g) (- n 1))))
(newton-cbrt a 1 60)

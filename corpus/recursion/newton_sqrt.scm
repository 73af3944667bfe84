; sqrt(a) by Newton's iteration g <- (g + a/g) / 2, 40 tail-recursive steps from g = a
(define (newton-sqrt a g steps)
  (if (= steps 0)
      g
      (newton-sqrt a (* 0.5 (+ g (/ a g))) (- steps 1))))
(newton-sqrt a a 40)

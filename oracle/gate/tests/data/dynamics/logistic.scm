;; Twenty steps of the logistic map.
(define (step x n) (if (= n 0) x (step (* r x (- 1.0 x)) (- n 1))))
(step x0 20)

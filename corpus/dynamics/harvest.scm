; Discrete logistic population with proportional harvesting, 50 generations
(define (next-generation p)
  (- (+ p (* growth p (- 1 (/ p capacity)))) (* harvest p)))
(define (simulate p n)
  (if (= n 0) p (simulate (next-generation p) (- n 1))))
(simulate p0 50)

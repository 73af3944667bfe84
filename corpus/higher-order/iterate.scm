; Gradient descent on (w - target)^2 by a higher-order iterate: 10 applications of a step closure
(define (iterate f n)
  (if (= n 0)
      (lambda (y) y)
      (lambda (y) (f ((iterate f (- n 1)) y)))))
(define (gd-step w) (- w (* eta 2 (- w target))))
((iterate gd-step 10) w0)

; Lotka-Volterra predator-prey model, forward Euler, 100 steps of dt = 0.01; value: prey + predators at t = 1
(define dt 0.01)
(define (lv-step prey pred)
  (list (+ prey (* dt (- (* a prey) (* b prey pred))))
        (+ pred (* dt (- (* d prey pred) (* c pred))))))
(let loop ((n 0) (state (list x0 y0)))
  (if (= n 100)
      (+ (car state) (cadr state))
      (loop (+ n 1) (lv-step (car state) (cadr state)))))

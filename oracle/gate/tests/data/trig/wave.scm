;; A damped wave sampled at t.
(define (wave t) (* (exp (* -0.2 t)) (sin (* omega t))))
(wave 1.3)

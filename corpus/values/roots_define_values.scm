; define-values, let*-values and receive: a quadratic's two roots, their product and sum weighed.
(define (roots a b c)
  (let ((d (sqrt (- (* b b) (* 4 a c)))))
    (values (/ (+ (- b) d) (* 2 a)) (/ (- (- b) d) (* 2 a)))))
(define-values (r1 r2) (roots a b c))
(let*-values (((s) (values (+ r1 r2)))
              ((p q) (values (* r1 r2) s)))
  (receive (u . rest) (values p q 1.5)
    (+ u (* (car rest) (cadr rest)))))

; Root of x^3 + c x - 1 by Newton's method, stopping when the step is below a tolerance
(define (f x) (- (+ (* x x x) (* c x)) 1))
(define (df x) (+ (* 3 x x) c))
(define (solve x)
  (let ((step (/ (f x) (df x))))
    (if (< (abs step) 1e-15)
        (- x step)
        (solve (- x step)))))
(solve 1)

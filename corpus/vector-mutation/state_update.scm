; a two-state recurrence kept in one vector, updated in place each step (x <- x + h y, y <- y - h k x, the new x):
; symplectic Euler for a spring, 5 steps; the value is the final energy.
(define (simulate x0 steps)
  (let ((s (vector x0 0.0)))
    (do ((i 0 (+ i 1))) ((= i steps) s)
      (vector-set! s 0 (+ (vector-ref s 0) (* h (vector-ref s 1))))
      (vector-set! s 1 (- (vector-ref s 1) (* h k (vector-ref s 0)))))))
(let ((s (simulate x0 5)))
  (+ (* 0.5 k (square (vector-ref s 0))) (* 0.5 (square (vector-ref s 1)))))

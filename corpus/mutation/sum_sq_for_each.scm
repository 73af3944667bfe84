; set! on an accumulator that a lambda passed to for-each captures: the gradient flows through every version.
(define (sum-sq xs)
  (let ((acc 0))
    (for-each (lambda (x) (set! acc (+ acc (* x x)))) xs)
    acc))
(* 0.5 (sum-sq (list a b c)))

; Newton's method for sqrt(p), the iterate and the counter kept in variables a do loop assigns.
(define (newton-sqrt p)
  (let ((x 1.0) (i 0))
    (do () ((= i 30) x)
      (set! x (* 0.5 (+ x (/ p x))))
      (set! i (+ i 1)))))
(* k (newton-sqrt p))

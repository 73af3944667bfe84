; The paper's recursive polynomial 1 + x + x^2 + x^3, scaled by alpha
(define (poly x n)
  (if (= n 0) 1 (+ 1 (* x (poly x (- n 1))))))
(* alpha (poly x 3))

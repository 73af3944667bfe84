; alpha (1 + x + ... + x^3): the polynomial built by non-tail recursion on n, Horner style
(define (poly x n)
  (if (= n 0)
      1
      (+ 1 (* x (poly x (- n 1))))))
(* alpha (poly x 3))

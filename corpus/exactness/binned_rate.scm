; exactness in a numeric program: a count is an exact integer, turned inexact for the arithmetic; an index made
; exact from a rounded real picks a rate from a vector; exact-integer? guards a default.
(define rates (vector 0.5 1.5 2.5 3.5))
(define (bin t) (exact (floor (* 2 t))))
(define n (length '(a b c)))
(define (scale k) (if (exact-integer? k) (exact->inexact k) 1))
(* (vector-ref rates (bin t)) x (scale n) (inexact (/ 6 n)))

;; sin of a square, through compose.
(define (compose f g) (lambda (x) (f (g x))))
((compose sin square) x)

; Differentiate a polynomial given as a coefficient list (lowest degree first), then evaluate it at x
(define (poly-deriv coeffs)
  (let loop ((cs (cdr coeffs)) (k 1))
    (if (null? cs)
        '()
        (cons (* k (car cs)) (loop (cdr cs) (+ k 1))))))
(define (poly-eval coeffs x)
  (fold-right (lambda (c acc) (+ c (* x acc))) 0 coeffs))
(poly-eval (poly-deriv (list 1 a 0.5 -2 0.25)) x)

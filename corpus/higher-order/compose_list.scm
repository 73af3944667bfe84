; Composing a list of functions with fold-right: exp(sin(alpha x + 0.5))
(define (compose f g) (lambda (y) (f (g y))))
(define (compose-all fs) (fold-right compose (lambda (y) y) fs))
((compose-all (list exp sin (lambda (y) (+ (* alpha y) 0.5)))) x)

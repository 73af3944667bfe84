; Numbers inside quoted data (lists and dotted pairs) are literals too and get gradients
(define table '((1 . 0.25) (2 . 0.5) (3 . 0.75)))
(define (weight k) (cdr (assv k table)))
(+ (* (weight 1) x) (* (weight 3) x x) (car '(4.5 6)))

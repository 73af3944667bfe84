; Sum of squares of the scaled terms above a threshold, selected by filter with a lambda
(define terms (map (lambda (k) (* k x)) '(0.5 1 2 3)))
(fold-left + 0 (map square (filter (lambda (t) (> t 1)) terms)))

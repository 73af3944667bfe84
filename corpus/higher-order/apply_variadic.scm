; Variadic lambdas called through apply: a mean of any arity and a rest-argument weighted sum
(define (mean . xs) (/ (apply + xs) (length xs)))
(define (weighted w . xs) (* w (apply + xs)))
(+ (apply mean (list x alpha 3)) (weighted alpha x x 1))

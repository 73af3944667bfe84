; Variadic lambdas: all arguments as a list, a required argument plus a rest list, and a variadic define
(define sum-all (lambda args (fold-left + 0 args)))
(define scaled-sum (lambda (k . rest) (* k (apply + rest))))
(define (first-plus-count a . more) (+ a (length more)))
(+ (sum-all x alpha 2) (scaled-sum alpha x x 1) (first-plus-count x 'a 'b) (sum-all))

; case-lambda: one procedure called with one, two and three arguments, each arity its own clause.
(define weigh
  (case-lambda
    ((x) (* x x))
    ((x y) (+ (* x y) x))
    ((x . more) (* x (apply + more)))))
(+ (weigh a) (weigh a b) (weigh a b c))

; log-sum-exp of a list via map and reduce
(define (logsumexp xs) (log (reduce + 0 (map exp xs))))
(logsumexp (list x alpha 0.5 (* 2 x)))

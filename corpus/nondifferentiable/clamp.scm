; Clamping x into [lo, hi] with min and max, at a bound
(define (clamp v low high) (min high (max low v)))
(+ (clamp x lo hi) (* 0.1 x))

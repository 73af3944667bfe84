;; A kink at x = 1: slope 1 on the left, 2 on the right.
(if (< x 1.0) x (* 2.0 x))

; A branch on (< x alpha): x^2 below the threshold, x + 1 at or above it (a jump at x = alpha = 1)
(if (< x alpha)
    (* x x)
    (+ x 1))

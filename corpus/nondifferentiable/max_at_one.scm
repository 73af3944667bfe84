; w y + max(x, 1): a kink at x = 1
(+ (* w y) (max x 1))

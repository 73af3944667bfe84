; A vector built from x, summed: 3x + 1.
(vsum (vec x (* 2 x) 1))

; A vector built from x, summed: 3x + 1 (lantern.scm does not cover tensors).
(vsum (vec x (* 2 x) 1))

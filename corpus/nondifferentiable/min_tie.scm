; min of two smooth functions at a point where they tie
(min (* 2 x) (+ x y))

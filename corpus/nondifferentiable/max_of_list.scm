; The largest of three values via apply max, at a tie
(apply max (list x y (* 0.5 z)))

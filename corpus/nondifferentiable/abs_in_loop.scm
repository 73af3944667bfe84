; The map x <- |x - c| iterated 4 times; from x0 = 0.5 with c = 0.25 the orbit hits the kink at 0
(do ((i 0 (+ i 1))
     (x x0 (abs (- x c))))
    ((= i 4) x))

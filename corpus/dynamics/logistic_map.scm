; Logistic map x <- r x (1 - x), 200 steps in a do loop; for 1 < r < 3 it converges to 1 - 1/r
(do ((i 0 (+ i 1))
     (x x0 (* r x (- 1 x))))
    ((= i 200) x))

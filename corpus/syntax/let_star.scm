; let* with each binding using the previous ones: a chain u -> v -> w
(let* ((u (* 2 x))
       (v (+ u alpha))
       (w (* u v)))
  (- w (/ v 4)))

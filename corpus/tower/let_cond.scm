; let* and cond: a piecewise quadratic evaluated away from its breakpoint
(let* ((u (* 2 x))
       (v (+ u alpha)))
  (cond ((> v 10) 0)
        ((> v 0) (* v v))
        (else (- v))))

;; Moré, Garbow and Hillstrom (1981) problem 2, FreudensteinRoth: n = 2, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=0.5 x2=-2.0
;; minimum 0.0
(+ (square (+ -13 x1 (* (- (* (- 5 x2) x2) 2) x2)))
   (square (+ -29 x1 (* (- (* (+ x2 1) x2) 14) x2))))

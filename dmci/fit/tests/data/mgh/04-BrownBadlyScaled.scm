;; Moré, Garbow and Hillstrom (1981) problem 4, BrownBadlyScaled: n = 2, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=1.0 x2=1.0
;; minimum 0.0
(+ (square (- x1 1000000))
   (square (- x2 2e-06))
   (square (- (* x1 x2) 2)))

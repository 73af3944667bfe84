;; Moré, Garbow and Hillstrom (1981) problem 3, PowellBadlyScaled: n = 2, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=0.0 x2=1.0
;; minimum 0.0
(+ (square (- (* 10000 x1 x2) 1))
   (square (- (+ (exp (- x1)) (exp (- x2))) 1.0001)))

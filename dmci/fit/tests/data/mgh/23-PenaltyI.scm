;; Moré, Garbow and Hillstrom (1981) problem 23, PenaltyI: n = 4, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=1.0 x2=2.0 x3=3.0 x4=4.0
;; minimum 2.24997e-05
(+ (square (* 0.0031622776601683794 (- x1 1)))
   (square (* 0.0031622776601683794 (- x2 1)))
   (square (* 0.0031622776601683794 (- x3 1)))
   (square (* 0.0031622776601683794 (- x4 1)))
   (square (- (+ (* x1 x1) (* x2 x2) (* x3 x3) (* x4 x4)) 0.25)))

;; Moré, Garbow and Hillstrom (1981) problem 1, Rosenbrock: n = 2, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=-1.2 x2=1.0
;; minimum 0.0
(+ (square (* 10 (- x2 (* x1 x1))))
   (square (- 1 x1)))

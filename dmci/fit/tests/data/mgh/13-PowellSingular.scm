;; Moré, Garbow and Hillstrom (1981) problem 13, PowellSingular: n = 4, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=3.0 x2=-1.0 x3=0.0 x4=1.0
;; minimum 0.0
(+ (square (+ x1 (* 10 x2)))
   (square (* 2.23606797749979 (- x3 x4)))
   (square (square (- x2 (* 2 x3))))
   (square (* 3.1622776601683795 (square (- x1 x4)))))

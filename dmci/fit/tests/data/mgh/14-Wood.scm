;; Moré, Garbow and Hillstrom (1981) problem 14, Wood: n = 4, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=-3.0 x2=-1.0 x3=-3.0 x4=-1.0
;; minimum 0.0
(+ (square (* 10 (- x2 (* x1 x1))))
   (square (- 1 x1))
   (square (* 9.486832980505138 (- x4 (* x3 x3))))
   (square (- 1 x3))
   (square (* 3.1622776601683795 (+ x2 x4 -2)))
   (square (/ (- x2 x4) 3.1622776601683795)))

;; Moré, Garbow and Hillstrom (1981) problem 21, ExtendedRosenbrock: n = 10, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=-1.2 x2=1.0 x3=-1.2 x4=1.0 x5=-1.2 x6=1.0 x7=-1.2 x8=1.0 x9=-1.2 x10=1.0
;; minimum 0.0
(+ (square (* 10 (- x2 (* x1 x1))))
   (square (- 1 x1))
   (square (* 10 (- x4 (* x3 x3))))
   (square (- 1 x3))
   (square (* 10 (- x6 (* x5 x5))))
   (square (- 1 x5))
   (square (* 10 (- x8 (* x7 x7))))
   (square (- 1 x7))
   (square (* 10 (- x10 (* x9 x9))))
   (square (- 1 x9)))

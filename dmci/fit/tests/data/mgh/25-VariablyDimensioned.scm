;; Moré, Garbow and Hillstrom (1981) problem 25, VariablyDimensioned: n = 10, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=0.9 x2=0.8 x3=0.7 x4=0.6 x5=0.5 x6=0.4 x7=0.30000000000000004 x8=0.19999999999999996 x9=0.09999999999999998 x10=0.0
;; minimum 0.0
(+ (square (- x1 1))
   (square (- x2 1))
   (square (- x3 1))
   (square (- x4 1))
   (square (- x5 1))
   (square (- x6 1))
   (square (- x7 1))
   (square (- x8 1))
   (square (- x9 1))
   (square (- x10 1))
   (square (+ (* 1 (- x1 1)) (* 2 (- x2 1)) (* 3 (- x3 1)) (* 4 (- x4 1)) (* 5 (- x5 1)) (* 6 (- x6 1)) (* 7 (- x7 1)) (* 8 (- x8 1)) (* 9 (- x9 1)) (* 10 (- x10 1))))
   (square (square (+ (* 1 (- x1 1)) (* 2 (- x2 1)) (* 3 (- x3 1)) (* 4 (- x4 1)) (* 5 (- x5 1)) (* 6 (- x6 1)) (* 7 (- x7 1)) (* 8 (- x8 1)) (* 9 (- x9 1)) (* 10 (- x10 1))))))

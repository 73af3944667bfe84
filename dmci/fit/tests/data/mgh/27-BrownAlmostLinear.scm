;; Moré, Garbow and Hillstrom (1981) problem 27, BrownAlmostLinear: n = 10, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=0.5 x2=0.5 x3=0.5 x4=0.5 x5=0.5 x6=0.5 x7=0.5 x8=0.5 x9=0.5 x10=0.5
;; minimum 0.0
(+ (square (- (+ x1 (+ x1 x2 x3 x4 x5 x6 x7 x8 x9 x10)) 11))
   (square (- (+ x2 (+ x1 x2 x3 x4 x5 x6 x7 x8 x9 x10)) 11))
   (square (- (+ x3 (+ x1 x2 x3 x4 x5 x6 x7 x8 x9 x10)) 11))
   (square (- (+ x4 (+ x1 x2 x3 x4 x5 x6 x7 x8 x9 x10)) 11))
   (square (- (+ x5 (+ x1 x2 x3 x4 x5 x6 x7 x8 x9 x10)) 11))
   (square (- (+ x6 (+ x1 x2 x3 x4 x5 x6 x7 x8 x9 x10)) 11))
   (square (- (+ x7 (+ x1 x2 x3 x4 x5 x6 x7 x8 x9 x10)) 11))
   (square (- (+ x8 (+ x1 x2 x3 x4 x5 x6 x7 x8 x9 x10)) 11))
   (square (- (+ x9 (+ x1 x2 x3 x4 x5 x6 x7 x8 x9 x10)) 11))
   (square (- (* x1 x2 x3 x4 x5 x6 x7 x8 x9 x10) 1)))

;; Moré, Garbow and Hillstrom (1981) problem 9, Gaussian: n = 3, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=0.4 x2=1.0 x3=0.0
;; minimum 1.12793e-08
(+ (square (- (* x1 (exp (* -0.5 x2 (square (- 3.5 x3))))) 0.0009))
   (square (- (* x1 (exp (* -0.5 x2 (square (- 3 x3))))) 0.0044))
   (square (- (* x1 (exp (* -0.5 x2 (square (- 2.5 x3))))) 0.0175))
   (square (- (* x1 (exp (* -0.5 x2 (square (- 2 x3))))) 0.054))
   (square (- (* x1 (exp (* -0.5 x2 (square (- 1.5 x3))))) 0.1295))
   (square (- (* x1 (exp (* -0.5 x2 (square (- 1 x3))))) 0.242))
   (square (- (* x1 (exp (* -0.5 x2 (square (- 0.5 x3))))) 0.3521))
   (square (- (* x1 (exp (* -0.5 x2 (square (- 0 x3))))) 0.3989))
   (square (- (* x1 (exp (* -0.5 x2 (square (- -0.5 x3))))) 0.3521))
   (square (- (* x1 (exp (* -0.5 x2 (square (- -1 x3))))) 0.242))
   (square (- (* x1 (exp (* -0.5 x2 (square (- -1.5 x3))))) 0.1295))
   (square (- (* x1 (exp (* -0.5 x2 (square (- -2 x3))))) 0.054))
   (square (- (* x1 (exp (* -0.5 x2 (square (- -2.5 x3))))) 0.0175))
   (square (- (* x1 (exp (* -0.5 x2 (square (- -3 x3))))) 0.0044))
   (square (- (* x1 (exp (* -0.5 x2 (square (- -3.5 x3))))) 0.0009)))

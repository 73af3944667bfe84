;; Moré, Garbow and Hillstrom (1981) problem 22, ExtendedPowell: n = 12, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=3.0 x2=-1.0 x3=0.0 x4=1.0 x5=3.0 x6=-1.0 x7=0.0 x8=1.0 x9=3.0 x10=-1.0 x11=0.0 x12=1.0
;; minimum 0.0
(+ (square (+ x1 (* 10 x2)))
   (square (* 2.23606797749979 (- x3 x4)))
   (square (square (- x2 (* 2 x3))))
   (square (* 3.1622776601683795 (square (- x1 x4))))
   (square (+ x5 (* 10 x6)))
   (square (* 2.23606797749979 (- x7 x8)))
   (square (square (- x6 (* 2 x7))))
   (square (* 3.1622776601683795 (square (- x5 x8))))
   (square (+ x9 (* 10 x10)))
   (square (* 2.23606797749979 (- x11 x12)))
   (square (square (- x10 (* 2 x11))))
   (square (* 3.1622776601683795 (square (- x9 x12)))))

;; Moré, Garbow and Hillstrom (1981) problem 30, BroydenTridiagonal: n = 10, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=-1.0 x2=-1.0 x3=-1.0 x4=-1.0 x5=-1.0 x6=-1.0 x7=-1.0 x8=-1.0 x9=-1.0 x10=-1.0
;; minimum 0.0
(+ (square (+ (* (- 3 (* 2 x1)) x1) (* -2 x2) 1))
   (square (+ (* (- 3 (* 2 x2)) x2) (- x1) (* -2 x3) 1))
   (square (+ (* (- 3 (* 2 x3)) x3) (- x2) (* -2 x4) 1))
   (square (+ (* (- 3 (* 2 x4)) x4) (- x3) (* -2 x5) 1))
   (square (+ (* (- 3 (* 2 x5)) x5) (- x4) (* -2 x6) 1))
   (square (+ (* (- 3 (* 2 x6)) x6) (- x5) (* -2 x7) 1))
   (square (+ (* (- 3 (* 2 x7)) x7) (- x6) (* -2 x8) 1))
   (square (+ (* (- 3 (* 2 x8)) x8) (- x7) (* -2 x9) 1))
   (square (+ (* (- 3 (* 2 x9)) x9) (- x8) (* -2 x10) 1))
   (square (+ (* (- 3 (* 2 x10)) x10) (- x9) 1)))

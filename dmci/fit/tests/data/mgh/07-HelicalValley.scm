;; Moré, Garbow and Hillstrom (1981) problem 7, HelicalValley: n = 3, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=-1.0 x2=0.0 x3=0.0
;; minimum 0.0
(let ((t (/ (atan (/ x2 x1)) 6.283185307179586)))
  (+ (square (* 10 (- x3 (* 10 (if (< x1 0) (+ t 0.5) t)))))
     (square (* 10 (- (sqrt (+ (* x1 x1) (* x2 x2))) 1)))
     (square x3)))

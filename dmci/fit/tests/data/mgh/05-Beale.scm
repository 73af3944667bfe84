;; Moré, Garbow and Hillstrom (1981) problem 5, Beale: n = 2, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=1.0 x2=1.0
;; minimum 0.0
(+ (square (- 1.5 (* x1 (- 1 (expt x2 1)))))
   (square (- 2.25 (* x1 (- 1 (expt x2 2)))))
   (square (- 2.625 (* x1 (- 1 (expt x2 3))))))

;; Moré, Garbow and Hillstrom (1981) problem 8, Bard: n = 3, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=1.0 x2=1.0 x3=1.0
;; minimum 0.00821487
(+ (square (- 0.14 (+ x1 (/ 1 (+ (* 15 x2) (* 1 x3))))))
   (square (- 0.18 (+ x1 (/ 2 (+ (* 14 x2) (* 2 x3))))))
   (square (- 0.22 (+ x1 (/ 3 (+ (* 13 x2) (* 3 x3))))))
   (square (- 0.25 (+ x1 (/ 4 (+ (* 12 x2) (* 4 x3))))))
   (square (- 0.29 (+ x1 (/ 5 (+ (* 11 x2) (* 5 x3))))))
   (square (- 0.32 (+ x1 (/ 6 (+ (* 10 x2) (* 6 x3))))))
   (square (- 0.35 (+ x1 (/ 7 (+ (* 9 x2) (* 7 x3))))))
   (square (- 0.39 (+ x1 (/ 8 (+ (* 8 x2) (* 8 x3))))))
   (square (- 0.37 (+ x1 (/ 9 (+ (* 7 x2) (* 7 x3))))))
   (square (- 0.58 (+ x1 (/ 10 (+ (* 6 x2) (* 6 x3))))))
   (square (- 0.73 (+ x1 (/ 11 (+ (* 5 x2) (* 5 x3))))))
   (square (- 0.96 (+ x1 (/ 12 (+ (* 4 x2) (* 4 x3))))))
   (square (- 1.34 (+ x1 (/ 13 (+ (* 3 x2) (* 3 x3))))))
   (square (- 2.1 (+ x1 (/ 14 (+ (* 2 x2) (* 2 x3))))))
   (square (- 4.39 (+ x1 (/ 15 (+ (* 1 x2) (* 1 x3)))))))

;; Moré, Garbow and Hillstrom (1981) problem 6, JennrichSampson: n = 2, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=0.3 x2=0.4
;; minimum 124.362182355
(+ (square (- 4 (+ (exp (* 1 x1)) (exp (* 1 x2)))))
   (square (- 6 (+ (exp (* 2 x1)) (exp (* 2 x2)))))
   (square (- 8 (+ (exp (* 3 x1)) (exp (* 3 x2)))))
   (square (- 10 (+ (exp (* 4 x1)) (exp (* 4 x2)))))
   (square (- 12 (+ (exp (* 5 x1)) (exp (* 5 x2)))))
   (square (- 14 (+ (exp (* 6 x1)) (exp (* 6 x2)))))
   (square (- 16 (+ (exp (* 7 x1)) (exp (* 7 x2)))))
   (square (- 18 (+ (exp (* 8 x1)) (exp (* 8 x2)))))
   (square (- 20 (+ (exp (* 9 x1)) (exp (* 9 x2)))))
   (square (- 22 (+ (exp (* 10 x1)) (exp (* 10 x2))))))

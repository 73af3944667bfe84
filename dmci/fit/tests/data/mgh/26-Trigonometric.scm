;; Moré, Garbow and Hillstrom (1981) problem 26, Trigonometric: n = 10, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=0.1 x2=0.1 x3=0.1 x4=0.1 x5=0.1 x6=0.1 x7=0.1 x8=0.1 x9=0.1 x10=0.1
;; minimum 0.0
(+ (square (- 10 (+ (cos x1) (cos x2) (cos x3) (cos x4) (cos x5) (cos x6) (cos x7) (cos x8) (cos x9) (cos x10)) (* 1 (- (cos x1) 1)) (sin x1)))
   (square (- 10 (+ (cos x1) (cos x2) (cos x3) (cos x4) (cos x5) (cos x6) (cos x7) (cos x8) (cos x9) (cos x10)) (* 2 (- (cos x2) 1)) (sin x2)))
   (square (- 10 (+ (cos x1) (cos x2) (cos x3) (cos x4) (cos x5) (cos x6) (cos x7) (cos x8) (cos x9) (cos x10)) (* 3 (- (cos x3) 1)) (sin x3)))
   (square (- 10 (+ (cos x1) (cos x2) (cos x3) (cos x4) (cos x5) (cos x6) (cos x7) (cos x8) (cos x9) (cos x10)) (* 4 (- (cos x4) 1)) (sin x4)))
   (square (- 10 (+ (cos x1) (cos x2) (cos x3) (cos x4) (cos x5) (cos x6) (cos x7) (cos x8) (cos x9) (cos x10)) (* 5 (- (cos x5) 1)) (sin x5)))
   (square (- 10 (+ (cos x1) (cos x2) (cos x3) (cos x4) (cos x5) (cos x6) (cos x7) (cos x8) (cos x9) (cos x10)) (* 6 (- (cos x6) 1)) (sin x6)))
   (square (- 10 (+ (cos x1) (cos x2) (cos x3) (cos x4) (cos x5) (cos x6) (cos x7) (cos x8) (cos x9) (cos x10)) (* 7 (- (cos x7) 1)) (sin x7)))
   (square (- 10 (+ (cos x1) (cos x2) (cos x3) (cos x4) (cos x5) (cos x6) (cos x7) (cos x8) (cos x9) (cos x10)) (* 8 (- (cos x8) 1)) (sin x8)))
   (square (- 10 (+ (cos x1) (cos x2) (cos x3) (cos x4) (cos x5) (cos x6) (cos x7) (cos x8) (cos x9) (cos x10)) (* 9 (- (cos x9) 1)) (sin x9)))
   (square (- 10 (+ (cos x1) (cos x2) (cos x3) (cos x4) (cos x5) (cos x6) (cos x7) (cos x8) (cos x9) (cos x10)) (* 10 (- (cos x10) 1)) (sin x10))))

;; Moré, Garbow and Hillstrom (1981) problem 10, Meyer: n = 3, written by ci/fit-objective from ci/mgh_problems.py.
;; start x1=0.02 x2=4000.0 x3=250.0
;; minimum 87.9458551704
(+ (square (- (* x1 (exp (/ x2 (+ 50 x3)))) 34780))
   (square (- (* x1 (exp (/ x2 (+ 55 x3)))) 28610))
   (square (- (* x1 (exp (/ x2 (+ 60 x3)))) 23650))
   (square (- (* x1 (exp (/ x2 (+ 65 x3)))) 19630))
   (square (- (* x1 (exp (/ x2 (+ 70 x3)))) 16370))
   (square (- (* x1 (exp (/ x2 (+ 75 x3)))) 13720))
   (square (- (* x1 (exp (/ x2 (+ 80 x3)))) 11540))
   (square (- (* x1 (exp (/ x2 (+ 85 x3)))) 9744))
   (square (- (* x1 (exp (/ x2 (+ 90 x3)))) 8261))
   (square (- (* x1 (exp (/ x2 (+ 95 x3)))) 7030))
   (square (- (* x1 (exp (/ x2 (+ 100 x3)))) 6005))
   (square (- (* x1 (exp (/ x2 (+ 105 x3)))) 5147))
   (square (- (* x1 (exp (/ x2 (+ 110 x3)))) 4427))
   (square (- (* x1 (exp (/ x2 (+ 115 x3)))) 3820))
   (square (- (* x1 (exp (/ x2 (+ 120 x3)))) 3307))
   (square (- (* x1 (exp (/ x2 (+ 125 x3)))) 2872)))

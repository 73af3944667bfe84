;; sqrt a by ten Newton steps from 1, by tail recursion.
(define (newton y k) (if (= k 0) y (newton (* 0.5 (+ y (/ a y))) (- k 1))))
(newton 1.0 10)

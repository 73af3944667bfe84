;; exp x by its Taylor series, summed by non-tail recursion over n terms.
(define (term x k) (if (= k 0) 1.0 (* (/ x k) (term x (- k 1)))))
(define (series x n) (if (< n 0) 0.0 (+ (term x n) (series x (- n 1)))))
(series x 20)

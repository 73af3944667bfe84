; Build a list of length N by non-tail recursion, then map and fold it: sum_{k=1}^{N} x k / N
(define (build n)
  (if (= n 0)
      '()
      (cons (* x n) (build (- n 1)))))
(fold-left + 0 (map (lambda (v) (/ v N)) (build N)))

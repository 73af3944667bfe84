; Binomial probability C(8,3) p^3 (1-p)^5 with C by Pascal's rule (tree recursion)
(define (choose n k)
  (if (or (= k 0) (= k n))
      1
      (+ (choose (- n 1) (- k 1)) (choose (- n 1) k))))
(define (pmf n k p)
  (* (choose n k) (expt p k) (expt (- 1 p) (- n k))))
(pmf 8 3 p)

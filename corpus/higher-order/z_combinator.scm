; Recursion through the applicative-order Y combinator: the degree-12 Taylor polynomial of exp
(define Z
  (lambda (f)
    ((lambda (g) (f (lambda (v) ((g g) v))))
     (lambda (g) (f (lambda (v) ((g g) v)))))))
(define partial-exp
  (Z (lambda (self)
       (lambda (k)
         (if (> k 12) 1 (+ 1 (* (/ x k) (self (+ k 1)))))))))
(partial-exp 1)

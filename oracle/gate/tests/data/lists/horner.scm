;; A polynomial by Horner's rule over its coefficient list.
(define coefficients (list 1.5 -2.0 0.25 c))
(fold-left (lambda (acc k) (+ (* acc x) k)) 0.0 coefficients)

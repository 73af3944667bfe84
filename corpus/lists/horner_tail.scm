; Horner's rule, tail-recursive, over a quoted coefficient list with the highest degree first
(define (horner-acc coeffs x acc)
  (if (null? coeffs)
      acc
      (horner-acc (cdr coeffs) x (+ (* acc x) (car coeffs)))))
(horner-acc '(0.5 -1 0 3 2) x 0)

; Horner's rule over a coefficient list, lowest degree first: c0 + x (c1 + x (c2 + x c3))
(define (horner coeffs x)
  (if (null? coeffs)
      0
      (+ (car coeffs) (* x (horner (cdr coeffs) x)))))
(horner (list a0 -1.5 2 0.25) x)

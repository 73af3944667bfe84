; Horner's rule over a coefficient vector built with vector-append and vector-copy, plus a vector-fill entry
(define coeffs (vector-append (vector a0 -1.5) (vector-copy #(9 2 0.25 9) 1 3)))
(define (horner c x)
  (let loop ((i (- (vector-length c) 1)) (acc 0.0))
    (if (< i 0) acc (loop (- i 1) (+ (vector-ref c i) (* x acc))))))
(define ones (vector-fill (make-vector 2 7) 1))
(+ (horner coeffs x) (vector-ref ones 0))

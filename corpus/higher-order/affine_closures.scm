; Closures capturing parameters: two affine maps from one constructor, applied in turn
(define (make-affine slope offset)
  (lambda (y) (+ (* slope y) offset)))
(define f1 (make-affine alpha 1))
(define f2 (make-affine 2 beta))
(f2 (f1 x))

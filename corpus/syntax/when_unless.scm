; when and unless returning the value of their last body expression
(define (pos-part v) (if (> v 0) v 0))
(+ (when (> x 0) (* x x) (* 2 x))
   (unless (< alpha 0) (pos-part alpha) (* alpha 3)))

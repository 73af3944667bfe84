; Rebinding primitive names lexically: inside the let, + multiplies and square cubes
(define (outer v) (+ v 1))
(let ((+ *) (square (lambda (v) (* v v v))))
  (- (+ x alpha 2) (square x) (outer x)))

; vector-set! in a do loop: three slots accumulate a k + b by k mod 3, updated in place; then a product of two slots.
(define (accumulate n)
  (let ((acc (make-vector 3 0.0)))
    (do ((k 0 (+ k 1))) ((= k n) acc)
      (let ((slot (modulo k 3)))
        (vector-set! acc slot (+ (vector-ref acc slot) (* a k) b))))))
(let ((v (accumulate 7)))
  (+ (* (vector-ref v 0) (vector-ref v 1)) (* 3 (vector-ref v 2))))

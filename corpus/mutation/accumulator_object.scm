; A closure over a mutated parameter: an accumulator whose state persists from one call to the next.
(define (make-acc total)
  (lambda (x)
    (set! total (+ (* total r) x))
    total))
(define acc (make-acc 1.0))
(begin
  (acc a)
  (acc b)
  (acc (* a b)))

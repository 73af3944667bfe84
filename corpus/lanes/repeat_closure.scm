; A closure applied n times by a higher-order loop: v -> c v + 1, from x.
; Value c^n x + (c^n - 1)/(c - 1); each lane its own n (depth) and c.
(define (repeat f n v) (if (< n 1) v (repeat f (- n 1) (f v))))
(repeat (lambda (v) (+ (* c v) 1)) n x)

; First-order IIR low-pass y[n] = a y[n-1] + (1 - a) u[n] over 40 samples of a constant input
(define (constant-signal u n)
  (if (= n 0) '() (cons u (constant-signal u (- n 1)))))
(define (lowpass a y0 signal)
  (fold-left (lambda (y u) (+ (* a y) (* (- 1 a) u))) y0 signal))
(lowpass a y0 (constant-signal u 40))

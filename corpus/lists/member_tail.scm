; memv finds the marker in a sample list; the samples after it are smoothed by an exponential filter
(define samples (list 0.5 x 7 (* 2 x) alpha 3))
(define after-marker (cdr (memv 7 samples)))
(fold-left (lambda (acc v) (+ (* 0.5 acc) v)) 0 after-marker)

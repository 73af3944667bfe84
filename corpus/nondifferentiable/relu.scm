; A one-unit ReLU layer, max(0, w x + b), at its hinge
(define (relu z) (max 0 z))
(* 3 (relu (+ (* w x) b)))

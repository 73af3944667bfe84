; Lanes that part: each lane's n is its own recursion depth, and x < 1 picks the branch.
; x < 1: x^n; otherwise 2 x^n - x.
(define (f n acc) (if (< n 0.5) acc (f (- n 1) (* acc x))))
(if (< x 1) (f n 1) (- (f n 2) x))

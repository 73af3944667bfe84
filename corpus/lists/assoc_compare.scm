; R7RS assoc and member with a comparison procedure: the rate of the first tier whose bound is >= t, times the readings from the first one above 1
(define tiers (list (list 10 (* 0.5 k)) (list 20 k) (list 40 (* 2 k))))
(define rate (cadr (assoc t tiers <=)))
(define readings (list 0.2 x (* 3 x) 5))
(* rate (apply + (member 1 readings (lambda (lo v) (< lo v)))))

; Lookup with string keys through assoc (equal?): 2.5 exp(-rate time)
(define table (list (cons "rate" r) (cons "time" t) (cons "scale" 2.5)))
(define (get key) (cdr (assoc key table)))
(* (get "scale") (exp (- (* (get "rate") (get "time")))))

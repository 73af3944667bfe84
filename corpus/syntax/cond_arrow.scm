; cond with a test whose value is passed on by =>, a plain clause and else
(define table (list (list 'a 1.5) (list 'b x) (list 'c 4)))
(define (lookup key)
  (cond ((assq key table) => cadr)
        ((eq? key 'default) alpha)
        (else 0)))
(+ (* (lookup 'b) (lookup 'a)) (lookup 'default) (lookup 'zzz))

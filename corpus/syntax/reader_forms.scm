; Reader coverage: .5, -2.5, 1e-3, 2.5e1, #true/#false, block and datum comments
#| a block comment
   spanning lines |#
(define weights '(.5 -2.5 1e-3 2.5e1))
#;(define ignored (error "never read as code"))
(define flags (list #true #false #t #f))
(+ (* (car weights) x)
   (* (cadr weights) alpha)
   (* (caddr weights) x alpha)
   (if (car flags) (list-ref weights 3) 0)
   (if (cadr flags) 100 0))

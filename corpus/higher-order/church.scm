; Church numerals: (3 + 4) applied to y -> alpha y, starting from x, gives alpha^7 x
(define zero (lambda (f) (lambda (y) y)))
(define (succ n) (lambda (f) (lambda (y) (f ((n f) y)))))
(define (add m n) (lambda (f) (lambda (y) ((m f) ((n f) y)))))
(define three (succ (succ (succ zero))))
(((add three (succ three)) (lambda (y) (* alpha y))) x)

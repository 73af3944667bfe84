; Hinge loss of a linear classifier over three labelled points; one point sits exactly on the margin
(define points '((1 . 1) (2 . 1) (-1 . -1)))
(define (hinge w p) (max 0 (- 1 (* (cdr p) w (car p)))))
(fold-left + 0 (map (lambda (p) (hinge w p)) points))

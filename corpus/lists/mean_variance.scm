; Mean plus population variance of a data list, with fold-left, length and map
(define data (list x 2.0 y 3.5 1.0))
(define (mean lst) (/ (fold-left + 0 lst) (length lst)))
(define (variance lst)
  (let ((m (mean lst)))
    (mean (map (lambda (v) (square (- v m))) lst))))
(+ (mean data) (variance data))

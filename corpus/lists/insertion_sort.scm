; Insertion sort with a comparator, then a rank-weighted sum of the sorted values
(define (insert v sorted less?)
  (cond ((null? sorted) (list v))
        ((less? v (car sorted)) (cons v sorted))
        (else (cons (car sorted) (insert v (cdr sorted) less?)))))
(define (sort lst less?)
  (fold-left (lambda (acc v) (insert v acc less?)) '() lst))
(define sorted (sort (list x 1.5 y -0.5 (* x y)) <))
(fold-left + 0 (map * sorted '(1 2 3 4 5)))

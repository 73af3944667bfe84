; Build the list (x^6 ... x 1) by consing, reverse it, and consume it with index weights: sum (k+1) x^k
(define (powers x n)
  (if (= n 0)
      (list 1)
      (let ((rest (powers x (- n 1))))
        (cons (* x (car rest)) rest))))
(define (weighted-sum lst k)
  (if (null? lst)
      0
      (+ (* k (car lst)) (weighted-sum (cdr lst) (+ k 1)))))
(weighted-sum (reverse (powers x 6)) 1)

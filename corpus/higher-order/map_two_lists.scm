; map over two lists at once, with a primitive and with a lambda
(define xs (list x alpha 2))
(define ys (list 3 x alpha))
(+ (apply + (map * xs ys))
   (fold-left + 0 (map (lambda (a b) (square (- a b))) xs ys)))

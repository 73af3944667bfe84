; quasiquote with unquote and unquote-splicing building a nested list, consumed by car/cdr
(define xs (list x (* 2 x)))
(define built `(1 ,alpha (nested ,(* x alpha) 0.5) ,@xs 3))
(+ (car built)
   (cadr built)
   (cadr (caddr built))
   (caddr (caddr built))
   (apply + (cdddr built)))

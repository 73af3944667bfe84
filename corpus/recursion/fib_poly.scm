; Fibonacci polynomial F_12(x), F_n = x F_{n-1} + F_{n-2}, by tree recursion
(define (fib-poly n x)
  (cond ((= n 0) 0)
        ((= n 1) 1)
        (else (+ (* x (fib-poly (- n 1) x)) (fib-poly (- n 2) x)))))
(fib-poly 12 x)

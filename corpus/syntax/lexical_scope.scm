; Lexical scoping: shadowed names, closures over loop variables, and a parameter named like an outer define
(define y 10)
(define (make k) (lambda (y) (+ (* k y) x)))
(define fs (map make (list 1 alpha)))
(let ((x 100) (y 0.5))
  (+ ((car fs) y) ((cadr fs) y) (* y x 0.001)))

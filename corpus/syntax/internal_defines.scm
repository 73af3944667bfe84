; Internal defines (letrec* semantics) inside a procedure body, including an internal recursive helper
(define (damped-sum x n)
  (define decay 0.5)
  (define (term k) (* (expt decay k) (sin (* k x))))
  (define (go k acc) (if (> k n) acc (go (+ k 1) (+ acc (term k)))))
  (go 1 0))
(damped-sum x 6)

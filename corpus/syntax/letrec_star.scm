; letrec* with later bindings using earlier values and a recursive procedure
(letrec* ((a (* x x))
          (b (+ a 1))
          (sum-to (lambda (k) (if (= k 0) 0 (+ (* k b) (sum-to (- k 1))))))
          (total (sum-to 4)))
  (/ total a))

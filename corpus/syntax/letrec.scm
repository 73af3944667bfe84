; letrec with mutually recursive local procedures: alternately scale by x and shift by alpha, 6 steps
(letrec ((scale-step (lambda (n v) (if (= n 0) v (shift-step (- n 1) (* x v)))))
         (shift-step (lambda (n v) (if (= n 0) v (scale-step (- n 1) (+ v alpha))))))
  (scale-step 6 1))

; Found by dmci fuzz --seed 20261130 (case 18855): an iterated map whose double value misses the exact one by more than 1e-12.
(let f2 ((k2 6) (a2 1)) (if (<= k2 0) a2 (f2 (- k2 1) (dot (vec (vsum (scale 1.5 (vec 1 a2))) -2.75) (vec (cos a2) (let ((f (lambda (v4) y))) (+ (f 1) (f 1))))))))

; Found by dmci fuzz --seed 31337 (case 56917): five squarings through sin of a growing value; the double value misses the exact one by 6e-5 relative and the gradient misses the finite difference by 1.5e-5.
(let f2 ((k2 5) (a2 (log 2 (+ 3 (cos x))))) (if (<= k2 0) a2 (f2 (- k2 1) ((lambda (f) (f (vsum (matvec (mat (list (sin k2) a2) (list k2 (sin a2))) (vec (sin k2) (sin a2)))))) square))))

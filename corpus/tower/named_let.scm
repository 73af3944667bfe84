; A named-let loop: x (1 + alpha)^4 by four multiplications
(let loop ((k 0) (acc x))
  (if (= k 4) acc (loop (+ k 1) (* acc (+ 1 alpha)))))

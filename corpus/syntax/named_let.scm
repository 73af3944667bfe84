; Named let accumulating a geometric series x^0 + x^1 + ... + x^7 times alpha
(let sum ((k 0) (term 1) (acc 0))
  (if (= k 8)
      (* alpha acc)
      (sum (+ k 1) (* term x) (+ acc term))))

; loop/recur (the reference system's named-let form): compound growth with a rate that decays each step
(loop ((k 0) (value v0) (rate r))
  (if (= k 5)
      value
      (recur (+ k 1) (* value (+ 1 rate)) (* rate 0.5))))

; gain |x - c|: a kink where x = c
(* gain (abs (- x c)))

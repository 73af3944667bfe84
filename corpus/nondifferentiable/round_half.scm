; round to even at a half-integer: (round 2.5) = 2 but (round 2.5000001) = 3
(* amp (round x))

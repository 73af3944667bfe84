; A step function by if/positive?: amplitude times the Heaviside step of x
(* amp (if (positive? x) 1 0))

; The paper's first program: alpha x^2
(* alpha (* x x))

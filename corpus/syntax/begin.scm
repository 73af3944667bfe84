; begin at top level and in expression position: the last expression is the value
(begin
  (define a (* x 3))
  (define b (+ a alpha)))
(begin 1 2 (* a b))

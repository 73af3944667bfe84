; sqrt(x^2) = |x|, a kink at 0 whose derivative 1/(2 sqrt 0) is not finite
(sqrt (* x x))

; truncate and ceiling at an integer: jumps
(+ (truncate x) (ceiling y))

; floor(x) + beta x: a jump at every integer x
(+ (floor x) (* beta x))

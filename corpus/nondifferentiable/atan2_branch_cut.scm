; The two-argument arctangent on its branch cut (y = 0, x < 0): the angle jumps from pi to -pi
(atan y x)

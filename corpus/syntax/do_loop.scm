; do with several variables, one without a step: sum_{i=0}^{9} c x^i
(do ((i 0 (+ i 1))
     (c alpha)
     (p 1 (* p x))
     (acc 0 (+ acc (* c p))))
    ((= i 10) acc))

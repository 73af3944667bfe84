; Voltage on a charging RC circuit: V(t) = V0 (1 - exp(-t / (R C)))
(define (capacitor-voltage v0 resistance capacitance time)
  (* v0 (- 1 (exp (- (/ time (* resistance capacitance)))))))
(capacitor-voltage V0 R C t)

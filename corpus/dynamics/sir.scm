; SIR epidemic model, forward Euler with dt = 0.1 for 150 steps; value: final recovered fraction
(define dt 0.1)
(do ((k 0 (+ k 1))
     (s (- 1 i0) (- s (* dt beta s i)))
     (i i0 (+ i (* dt (- (* beta s i) (* gamma i)))))
     (r 0 (+ r (* dt gamma i))))
    ((= k 150) r))

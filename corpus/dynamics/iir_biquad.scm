; Second-order IIR (biquad) resonator driven by a sampled sine; value: output energy over 60 samples
(define (biquad-energy b0 a1 a2 freq)
  (do ((n 0 (+ n 1))
       (y1 0 (+ (* b0 (sin (* freq n))) (* a1 y1) (* a2 y2)))
       (y2 0 y1)
       (energy 0 (+ energy (square y1))))
      ((= n 60) energy)))
(biquad-energy b0 a1 a2 freq)

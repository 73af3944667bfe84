; Acoustic Doppler shift: f' = f (c + v_r) / (c - v_s), c = 343 m/s
(define c 343)
(define (observed-frequency f receiver source)
  (* f (/ (+ c receiver) (- c source))))
(observed-frequency f vr vs)

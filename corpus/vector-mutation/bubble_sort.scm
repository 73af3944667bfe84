; an in-place bubble sort by vector-set! swaps: a weighted sum of the sorted values, so each parameter's gradient
; is the weight of the position it is sorted into.
(define (sort! v)
  (let ((n (vector-length v)))
    (do ((i 0 (+ i 1))) ((= i n) v)
      (do ((j 0 (+ j 1))) ((>= j (- n i 1)))
        (let ((x (vector-ref v j)) (y (vector-ref v (+ j 1))))
          (when (> x y)
            (vector-set! v j y)
            (vector-set! v (+ j 1) x)))))))
(define s (sort! (vector a b c d)))
(+ (vector-ref s 0) (* 2 (vector-ref s 1)) (* 3 (vector-ref s 2)) (* 4 (vector-ref s 3)))

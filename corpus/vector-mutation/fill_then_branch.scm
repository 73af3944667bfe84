; vector-fill! with the parameter, then a vector-set! on the path a branch on it takes, then a slot written from
; the others: the vector is made before the branch, so batched lanes that split write it apart.
(define (run a)
  (let ((v (make-vector 4 0.0)))
    (vector-fill! v a)
    (if (> a 1.0) (vector-set! v 1 (* a a)) (vector-set! v 2 (* 3.0 a)))
    (vector-set! v 3 (+ (vector-ref v 0) (vector-ref v 1) (vector-ref v 2)))
    (* (vector-ref v 3) (vector-ref v 3))))
(run a)

; A weighted sum through vector-ref: a vector of parameters against a vector literal of weights, plus c*a
(define w (vector a b c))
(define k #(0.5 2 -1.5))
(define (dot u v n)
  (let loop ((i 0) (acc 0.0))
    (if (= i n) acc (loop (+ i 1) (+ acc (* (vector-ref u i) (vector-ref v i)))))))
(+ (dot w k (vector-length w)) (* (vector-ref w 2) (vector-ref w 0)))

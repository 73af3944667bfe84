; case dispatching on symbols and numbers, with a list of data per clause, else and =>
(define (rate kind)
  (case kind
    ((fast quick) (* 3 alpha))
    ((slow) (/ alpha 2))
    ((1 2 3) => (lambda (k) (* k x)))
    (else 1)))
(+ (rate 'quick) (rate 'slow) (rate 2) (rate 'other))

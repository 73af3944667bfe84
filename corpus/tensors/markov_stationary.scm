; Stationary probability of state 0 of a two-state Markov chain: P^64 by six repeated squarings
(define P (mat (list (- 1 a) a) (list b (- 1 b))))
(define (square-times M n)
  (if (= n 0) M (square-times (matmul M M) (- n 1))))
(ref (square-times P 6) 0 0)

;; DiscoGrad's 32-threshold chain (chain32.scm) written with each test in the recursion's tail: the arms run the rest
;; of the chain, so under smooth interpretation each fork starts paths that run to the end (at most
;; --smooth-max-paths of them), where chain32.scm's arms join at the `if` (one path state). The same function.
(define ts '(0.2807 0.8638 -0.5033 -0.7341 0.6925 0.5557 -0.8357 -0.3403 0.9234 0.1024 -0.9498 0.1424 0.9131 -0.3777 -0.8158 0.5879 0.6643 -0.7591 -0.4687 0.8798 0.2419 -0.9422 0.0008 0.942 -0.2436 -0.8792 0.4701 0.7581 -0.6655 -0.5866 0.8166 0.3761))
(define (chain v ts) (if (null? ts) v (if (< v (car ts)) (chain (- v (car ts)) (cdr ts)) (chain v (cdr ts)))))
(chain (- x (/ x 2)) ts)

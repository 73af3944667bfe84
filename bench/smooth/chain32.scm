;; DiscoGrad's 32-threshold chain: v = x - x/2, then for each threshold t (a fixed list in [-1, 1]): if v < t,
;; subtract t. The value is piecewise linear in x, with jumps wherever v meets a threshold.
(define ts '(0.2807 0.8638 -0.5033 -0.7341 0.6925 0.5557 -0.8357 -0.3403 0.9234 0.1024 -0.9498 0.1424 0.9131 -0.3777 -0.8158 0.5879 0.6643 -0.7591 -0.4687 0.8798 0.2419 -0.9422 0.0008 0.942 -0.2436 -0.8792 0.4701 0.7581 -0.6655 -0.5866 0.8166 0.3761))
(define (chain v ts) (if (null? ts) v (chain (if (< v (car ts)) (- v (car ts)) v) (cdr ts))))
(chain (- x (/ x 2)) ts)

; let-values over a procedure returning two values: a point (r, theta) in Cartesian form, weighed.
(define (to-cartesian r theta)
  (values (* r (cos theta)) (* r (sin theta))))
(let-values (((x y) (to-cartesian r theta)))
  (+ (* 2 x) (* 3 y)))

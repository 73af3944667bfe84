;; Test forms in the shape of chibi-scheme's tests/r7rs-tests.scm, written for ci/r7rs's own test
;; (ci/tests/r7rs_test.py): each comment says what the runner must make of the form.
(test-begin "sample")

(define (twice x) (* 2 x))
(define (unused) (frobnicate))

;; pass: needs a definition (and not the unused one)
(test 8 (twice 4))
;; pass
(test '(1 2) (list 1 2))
;; pass: numbers compare within a relative 1e-5
(test 0.333333 (/ 1.0 3))
;; two passes, nested in another form; the second's verdict comes from inside the body
(let ()
  (define y 3)
  (test 3 y)
  (test 4 (+ y 1))
  'done)
;; fails inside the subset: a wrong expectation
(test 5 (+ 2 2))
;; fails inside the subset: a run-time error
(test 1 (car '()))
;; outside: an unbound procedure, named
(test 1 (frobnicate 1))
;; outside: syntax the reader rejects
(test #u8(1) (list 1))
;; pass: both sides' values compared as lists
(test-values (values 1 2) (values 1 (+ 1 1)))

(test-end)

; strings and characters as data in a numeric program: coefficients parsed from a table keyed by names, a term
; chosen by a character of its name.
(define coefficients (list (cons "linear" "2.5") (cons "quadratic" "0.5")))
(define (coefficient name) (string->number (cdr (assoc name coefficients))))
(define (term kind x)
  (case (string-ref kind 0)
    ((#\l) (* (coefficient kind) x))
    ((#\q) (* (coefficient kind) x x))
    (else 0)))
(+ (term "linear" x) (term (string-append "quad" "ratic") x) (* (string-length "abc") x))

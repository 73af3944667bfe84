; guard around a checked square root: a negative argument raises an error object whose irritant the guard's clause
; turns into a fallback, and raise-continuable lets a handler supply the value a computation goes on with.
(define (checked-sqrt x)
  (if (< x 0) (error "negative:" x) (sqrt x)))
(define (safe x)
  (guard (e ((error-object? e) (* -1.0 (car (error-object-irritants e)))))
    (checked-sqrt x)))
(+ (safe a) (safe b) (with-exception-handler (lambda (c) (* c c)) (lambda () (* 2 (raise-continuable a)))))

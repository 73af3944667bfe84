;;; prelude.scm -- the library procedures written in Scheme: map, for-each, filter, assoc, member, fold-left,
;;; fold-right, reduce, and for vectors make-vector, vector-fill, vector-fill!, vector-copy!, string->vector,
;;; vector->string, vector-map, vector-for-each. Each takes a procedure argument, which a native primitive cannot call, so each is a
;;; definition that the linker (lower/LinkPrelude) wraps around a program that uses it; the direct route and
;;; mce.scm then run the same code and differentiate through it the same way.
;;;
;;; The primitive table (prims/Lists.cpp, prims/Vectors.cpp) takes each top-level definition here as the source of the row of the
;;; same name. Every primitive and prelude procedure is named by its %-name, so a user rebinding `car` or `map`
;;; cannot change them; loops are tail calls.

;; (map f l ...): f on the lists' elements in turn, stopping at the shortest list.
(define (map f l . ls)
  (define (map1 l acc)
    (if (%null? l) (%reverse acc) (map1 (%cdr l) (%cons (f (%car l)) acc))))
  (define (any-null? ls)
    (if (%null? ls) #f (if (%null? (%car ls)) #t (any-null? (%cdr ls)))))
  (define (mapn ls acc)
    (if (any-null? ls)
        (%reverse acc)
        (mapn (%map %cdr ls) (%cons (%apply f (%map %car ls)) acc))))
  (if (%null? ls) (map1 l '()) (mapn (%cons l ls) '())))

;; (for-each f l ...): f on the lists' elements left to right, for effect.
(define (for-each f l . ls)
  (define (each1 l)
    (if (%null? l) #t (begin (f (%car l)) (each1 (%cdr l)))))
  (define (any-null? ls)
    (if (%null? ls) #f (if (%null? (%car ls)) #t (any-null? (%cdr ls)))))
  (define (eachn ls)
    (if (any-null? ls) #t (begin (%apply f (%map %car ls)) (eachn (%map %cdr ls)))))
  (if (%null? ls) (each1 l) (eachn (%cons l ls))))

;; (filter keep? l): the elements for which keep? is true, in order.
(define (filter keep? l)
  (let scan ((l l) (acc '()))
    (if (%null? l)
        (%reverse acc)
        (scan (%cdr l) (if (keep? (%car l)) (%cons (%car l) acc) acc)))))

;; (fold-left f init l): f on the accumulator and each element, left to right.
(define (fold-left f init l)
  (let fold ((acc init) (l l))
    (if (%null? l) acc (fold (f acc (%car l)) (%cdr l)))))

;; (fold-right f init l): f on each element and the accumulator, right to left (over the reversed list, so a
;; tail call).
(define (fold-right f init l)
  (let fold ((acc init) (r (%reverse l)))
    (if (%null? r) acc (fold (f (%car r) acc) (%cdr r)))))

;; (reduce f ridentity l): fold-left from the first element, with f's arguments swapped; ridentity for '().
(define (reduce f ridentity l)
  (if (%null? l)
      ridentity
      (let fold ((acc (%car l)) (l (%cdr l)))
        (if (%null? l) acc (fold (f (%car l) acc) (%cdr l))))))

;; (assoc key alist [compare]), R7RS's optional third argument: the 2-argument form is the native equal?
;; search (%assoc-equal); with a comparison procedure the scan is here, since a primitive cannot call a
;; procedure. A malformed rest of the list goes to the native search, which raises the 2-argument form's Type
;; error.
(define (assoc key alist . compare)
  (if (%null? compare)
      (%assoc-equal key alist)
      (if (%null? (%cdr compare))
          (let ((same? (%car compare)))
            (let scan ((l alist))
              (if (if (%pair? l) (%pair? (%car l)) #f)
                  (if (same? key (%caar l)) (%car l) (scan (%cdr l)))
                  (if (%null? l) #f (%assoc-equal key l)))))
          (%error "assoc: expects 2 to 3 arguments, got" (%length (%cons key (%cons alist compare)))))))

;; (member x l [compare]): as assoc, over the elements themselves.
(define (member x l . compare)
  (if (%null? compare)
      (%member-equal x l)
      (if (%null? (%cdr compare))
          (let ((same? (%car compare)))
            (let scan ((r l))
              (if (%pair? r)
                  (if (same? x (%car r)) r (scan (%cdr r)))
                  (if (%null? r) #f (%member-equal x r)))))
          (%error "member: expects 2 to 3 arguments, got" (%length (%cons x (%cons l compare)))))))

;; (make-vector k [fill]): k elements, each fill (0 when omitted); a list built by a tail loop, then one vector.
;; 0 and 1 are counted, not written: a numeric literal here would be a differentiable leaf of every program.
(define (make-vector k . fill)
  (let ((zero (%length '())) (one (%length '(#t))))
    (if (if (%integer? k) (%>= k zero) #f)
        (if (if (%pair? fill) (%pair? (%cdr fill)) #f)
            (%error "make-vector: expects 1 to 2 arguments, got" (%length (%cons k fill)))
            (let ((x (if (%null? fill) zero (%car fill))))
              (let build ((n k) (acc '()))
                (if (%<= n zero) (%list->vector acc) (build (%- n one) (%cons x acc))))))
        (%error "make-vector: argument 1 must be a non-negative integer, got" k))))

;; (vector-fill v x [start [end]]): a new vector, v with the elements from start to end replaced by x (v is left
;; as it was; vector-fill! below changes v).
(define (vector-fill v x . bounds)
  (if (if (%pair? bounds) (if (%pair? (%cdr bounds)) (%pair? (%cddr bounds)) #f) #f)
      (%error "vector-fill: expects 2 to 4 arguments, got" (%length (%cons v (%cons x bounds))))
      (let ((n (%vector-length v)) (zero (%length '())) (one (%length '(#t))))
        (let ((start (if (%null? bounds) zero (%car bounds)))
              (end (if (if (%null? bounds) #t (%null? (%cdr bounds))) n (%cadr bounds))))
          (%vector-copy v start end)  ; for its checks of v, start and end only
          (let build ((k (%- n one)) (acc '()))
            (if (%< k zero)
                (%list->vector acc)
                (build (%- k one) (%cons (if (if (%>= k start) (%< k end) #f) x (%vector-ref v k)) acc))))))))

;; (vector-fill! v x [start [end]]): x becomes each element of v from start to end, one vector-set! each (whose
;; errors name it: a literal vector, an index out of range).
(define (vector-fill! v x . bounds)
  (if (if (%pair? bounds) (if (%pair? (%cdr bounds)) (%pair? (%cddr bounds)) #f) #f)
      (%error "vector-fill!: expects 2 to 4 arguments, got" (%length (%cons v (%cons x bounds))))
      (let ((n (%vector-length v)) (one (%length '(#t))))
        (let ((start (if (%null? bounds) (%length '()) (%car bounds)))
              (end (if (if (%null? bounds) #t (%null? (%cdr bounds))) n (%cadr bounds))))
          (%vector-copy v start end)  ; for its checks of v, start and end only
          (let fill ((k start))
            (if (%< k end) (begin (%vector-set! v k x) (fill (%+ k one))) '()))))))

;; (vector-copy! to at from [start [end]]): from's elements from start to end written into to from index at, one
;; vector-set! each; they are read first, so a range of to copied onto itself copies what was there.
(define (vector-copy! to at from . bounds)
  (if (if (%pair? bounds) (if (%pair? (%cdr bounds)) (%pair? (%cddr bounds)) #f) #f)
      (%error "vector-copy!: expects 3 to 5 arguments, got" (%length (%cons to (%cons at (%cons from bounds)))))
      (let ((items (%apply %vector->list (%cons from bounds))) (one (%length '(#t))))
        (%vector-copy to at (%+ at (%length items)))  ; for its checks of to, at and the room from at
        (let copy ((k at) (xs items))
          (if (%pair? xs) (begin (%vector-set! to k (%car xs)) (copy (%+ k one) (%cdr xs))) '())))))

;; (string->vector s [start [end]]) and (vector->string v [start [end]]): through lists.
(define (string->vector s . bounds) (%list->vector (%apply %string->list (%cons s bounds))))
(define (vector->string v . bounds) (%list->string (%apply %vector->list (%cons v bounds))))

;; (vector-map f v ...): f on the vectors' elements in turn, through the lists of their elements.
(define (vector-map f v . vs)
  (if (%null? vs)
      (%list->vector (%map f (%vector->list v)))
      (%list->vector (%apply %map f (%vector->list v) (%map %vector->list vs)))))

;; (vector-for-each f v ...): f on the vectors' elements left to right, for effect.
(define (vector-for-each f v . vs)
  (if (%null? vs)
      (%for-each f (%vector->list v))
      (%apply %for-each f (%vector->list v) (%map %vector->list vs))))

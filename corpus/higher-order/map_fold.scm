; map a lambda over a quoted coefficient list, then fold-left +: (1 + 2 + 3 + 4) x^2
(fold-left + 0 (map (lambda (c) (* c (square x))) '(1 2 3 4)))

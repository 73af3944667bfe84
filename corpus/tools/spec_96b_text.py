# text: strings and characters as data inside a numeric program (the text primitives carry no gradient; the
# numbers around them do).
F = "text"

prog("text/named_terms.scm", F, [dict(x=2.0), dict(x=-1.5)],
     cf=lambda s, L: {"x": mpf(5.5) + s["x"], L("0"): mpf(0)},
     cv=lambda s: mpf(5.5) * s["x"] + s["x"] ** 2 / 2, note="assoc on strings, string->number, case on a character")

"""Expressions of ci/search-bench: one small tree for both the benchmark's laws (infix text such as
`m_0/sqrt(1-v**2/c**2)`, read from the shipped data files) and DMCI's programs (S-expressions such as
`(/ m_0 (sqrt (- 1 (/ (* v v) (* c c)))))`, read from what `dmci search` wrote), so that one evaluator draws the data
and checks exactness, and one translation feeds sympy for SRBench's rule.

Both readers are real parsers over a whitelist: a name is a known variable (or, in a program, a named parameter,
replaced by its fitted value), a head or function is one of the operators below, a number is a plain decimal
literal; anything else is refused with a ParseError that says where. Nothing read is ever evaluated as Python
(no eval, no sympify of text), and size and depth are bounded, so hostile text fails cleanly.

The tree: ("num", float, text) | ("var", name) | ("pi",) | ("op", name, [args]). Operator names are DMCI's
(`+ - * / expt exp log sin cos tan sqrt abs tanh atan asin acos square min max`); infix functions are mapped onto
them (`ln` -> log, `arcsin` -> asin, `**` -> expt)."""
import math
import re

import sympy

MAX_TEXT = 200_000  # characters of one expression
MAX_DEPTH = 200  # nesting
MAX_NODES = 20_000

# operator -> (fewest, most) operands; None: any number
ARITY = {
    "+": (1, None), "-": (1, None), "*": (1, None), "/": (1, None), "expt": (2, 2), "exp": (1, 1),
    "log": (1, 2), "sin": (1, 1), "cos": (1, 1), "tan": (1, 1), "sqrt": (1, 1), "abs": (1, 1), "tanh": (1, 1),
    "atan": (1, 2), "asin": (1, 1), "acos": (1, 1), "square": (1, 1), "min": (1, None), "max": (1, None),
}
# infix function names of the laws -> operators
INFIX_FUNCS = {"exp": "exp", "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan", "tanh": "tanh",
               "arcsin": "asin", "asin": "asin", "arccos": "acos", "acos": "acos", "arctan": "atan",
               "atan": "atan", "ln": "log", "log": "log", "abs": "abs"}

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\Z")
RATIONAL = re.compile(r"[+-]?\d+/\d+\Z")


class ParseError(ValueError):
    """Text that is not an expression this module accepts; the message says what and where."""


def _number(tok, where):
    if DECIMAL.match(tok):
        v = float(tok)
    elif RATIONAL.match(tok):
        n, d = tok.split("/")
        if int(d) == 0:
            raise ParseError(f"{where}: '{tok}': a zero denominator")
        v = int(n) / int(d)
    else:
        return None
    if not math.isfinite(v):
        raise ParseError(f"{where}: '{tok}' is not a finite number")
    return ("num", v, tok)


def _count(node):
    if node[0] != "op":
        return 1
    return 1 + sum(_count(a) for a in node[2])


# ---- S-expressions (DMCI's programs) ----

def parse_sexpr(text, variables, params=None):
    """The tree of one S-expression program. `variables`: the names it may read; `params`: {name: value} of its
    fitted named parameters (each occurrence becomes its value). Raises ParseError."""
    params = params or {}
    if not isinstance(text, str):
        raise ParseError("the program is not text")
    if len(text) > MAX_TEXT:
        raise ParseError(f"the program is {len(text)} characters long (at most {MAX_TEXT})")
    tokens = []
    for m in re.finditer(r"\s+|\(|\)|[^\s()]+", text):
        tok = m.group(0)
        if not tok.isspace():
            tokens.append((tok, m.start()))
    if not tokens:
        raise ParseError("the program is empty")
    pos = 0

    def read(depth):
        nonlocal pos
        if depth > MAX_DEPTH:
            raise ParseError(f"the program nests deeper than {MAX_DEPTH}")
        if pos >= len(tokens):
            raise ParseError("the program ends inside a list")
        tok, at = tokens[pos]
        pos += 1
        where = f"at character {at}"
        if tok == ")":
            raise ParseError(f"{where}: an unopened ')'")
        if tok != "(":
            num = _number(tok, where)
            if num is not None:
                return num
            if not NAME.match(tok):
                raise ParseError(f"{where}: '{tok[:40]}' is neither a number nor a name")
            if tok in params:
                v = params[tok]
                if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
                    raise ParseError(f"{where}: the parameter '{tok}' has no finite value")
                return ("num", float(v), repr(float(v)))
            if tok in variables:
                return ("var", tok)
            raise ParseError(f"{where}: '{tok[:40]}' is not a variable or parameter of this problem")
        if pos >= len(tokens):
            raise ParseError(f"{where}: the program ends inside a list")
        head, hat = tokens[pos]
        if head not in ARITY:
            raise ParseError(f"at character {hat}: '{head[:40]}' is not an operator the judge knows "
                             f"({' '.join(ARITY)})")
        pos += 1
        args = []
        while True:
            if pos >= len(tokens):
                raise ParseError(f"{where}: the list is not closed")
            if tokens[pos][0] == ")":
                pos += 1
                break
            args.append(read(depth + 1))
        lo, hi = ARITY[head]
        if len(args) < lo or (hi is not None and len(args) > hi):
            raise ParseError(f"{where}: ({head} ...) with {len(args)} operand(s)")
        return ("op", head, args)

    tree = read(0)
    if pos != len(tokens):
        raise ParseError(f"at character {tokens[pos][1]}: text after the expression (one expression expected)")
    if _count(tree) > MAX_NODES:
        raise ParseError(f"the program has more than {MAX_NODES} nodes")
    return tree


# ---- infix (the laws of the data files) ----

def parse_infix(text, variables):
    """The tree of an infix formula: numbers, the names in `variables`, pi, + - * / ** ^, unary minus, parentheses
    and the functions of INFIX_FUNCS. Raises ParseError."""
    if not isinstance(text, str) or not text.strip():
        raise ParseError("the formula is empty")
    if len(text) > MAX_TEXT:
        raise ParseError("the formula is too long")
    toks = []
    for m in re.finditer(r"\s+|\*\*|[-+*/^(),]|[A-Za-z_][A-Za-z0-9_]*|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|.", text):
        t = m.group(0)
        if t.isspace():
            continue
        toks.append((t, m.start()))
    pos = 0

    def peek():
        return toks[pos][0] if pos < len(toks) else None

    def take(expected=None):
        nonlocal pos
        if pos >= len(toks):
            raise ParseError(f"'{text}': ends early" + (f" (expected '{expected}')" if expected else ""))
        t, at = toks[pos]
        if expected is not None and t != expected:
            raise ParseError(f"'{text}': '{t}' at character {at} (expected '{expected}')")
        pos += 1
        return t, at

    def expr(d):
        if d > MAX_DEPTH:
            raise ParseError(f"'{text[:60]}': nests too deep")
        node = term(d)
        while peek() in ("+", "-"):
            op, _ = take()
            node = ("op", op, [node, term(d)])
        return node

    def term(d):
        node = unary(d)
        while peek() in ("*", "/"):
            op, _ = take()
            node = ("op", op, [node, unary(d)])
        return node

    def unary(d):
        if peek() == "-":
            take()
            return ("op", "-", [unary(d + 1)])
        if peek() == "+":
            take()
            return unary(d + 1)
        return power(d)

    def power(d):
        base = atom(d)
        if peek() in ("**", "^"):
            take()
            return ("op", "expt", [base, unary(d + 1)])
        return base

    def atom(d):
        t, at = take()
        if t == "(":
            node = expr(d + 1)
            take(")")
            return node
        num = _number(t, f"'{text}' at character {at}")
        if num is not None:
            return num
        if NAME.match(t):
            if peek() == "(":
                if t not in INFIX_FUNCS:
                    raise ParseError(f"'{text}': unknown function '{t}'")
                take("(")
                args = [expr(d + 1)]
                while peek() == ",":
                    take()
                    args.append(expr(d + 1))
                take(")")
                op = INFIX_FUNCS[t]
                lo, hi = ARITY[op]
                if len(args) < lo or (hi is not None and len(args) > hi):
                    raise ParseError(f"'{text}': {t} with {len(args)} argument(s)")
                return ("op", op, args)
            if t == "pi" and t not in variables:
                return ("pi",)
            if t in variables:
                return ("var", t)
            raise ParseError(f"'{text}': '{t}' is not a variable of the problem")
        raise ParseError(f"'{text}': unexpected '{t}' at character {at}")

    node = expr(0)
    if pos != len(toks):
        raise ParseError(f"'{text}': unexpected '{toks[pos][0]}' at character {toks[pos][1]}")
    return node


# ---- evaluation (real arithmetic, NaN where undefined, as a program's run would be) ----

def _pow(a, b):
    try:
        r = a ** b
    except (OverflowError, ZeroDivisionError):
        return math.inf if a == 0 else math.nan
    return r if isinstance(r, float) or isinstance(r, int) else math.nan  # a complex result: undefined


def _safe(f):
    def g(*xs):
        try:
            return f(*xs)
        except (ValueError, OverflowError, ZeroDivisionError):
            return math.nan
    return g


def _div(a, b):
    if b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1, b)
    return a / b


FUNCS = {
    "exp": _safe(math.exp), "sin": _safe(math.sin), "cos": _safe(math.cos), "tan": _safe(math.tan),
    "sqrt": _safe(math.sqrt), "abs": abs, "tanh": math.tanh, "asin": _safe(math.asin), "acos": _safe(math.acos),
    "square": _safe(lambda a: a * a),
}


def evaluate(node, env):
    """The value of the tree at one point (env: name -> float), a float (NaN where it is undefined)."""
    kind = node[0]
    if kind == "num":
        return node[1]
    if kind == "var":
        return env[node[1]]
    if kind == "pi":
        return math.pi
    op, args = node[1], [evaluate(a, env) for a in node[2]]
    try:
        if op == "+":
            return math.fsum(args) if len(args) > 1 else args[0]
        if op == "*":
            r = 1.0
            for a in args:
                r *= a
            return r
        if op == "-":
            if len(args) == 1:
                return -args[0]
            r = args[0]
            for a in args[1:]:
                r -= a
            return r
        if op == "/":
            if len(args) == 1:
                return _div(1.0, args[0])
            r = args[0]
            for a in args[1:]:
                r = _div(r, a)
            return r
        if op == "expt":
            return _pow(args[0], args[1])
        if op == "log":
            if len(args) == 2:
                return _div(_safe(math.log)(args[0]), _safe(math.log)(args[1]))
            return math.nan if args[0] < 0 else (-math.inf if args[0] == 0 else _safe(math.log)(args[0]))
        if op == "atan":
            return math.atan2(args[0], args[1]) if len(args) == 2 else math.atan(args[0])
        if op == "min":
            return math.nan if any(math.isnan(a) for a in args) else min(args)
        if op == "max":
            return math.nan if any(math.isnan(a) for a in args) else max(args)
        return FUNCS[op](*args)
    except (ValueError, OverflowError, ZeroDivisionError, TypeError):
        return math.nan


# ---- sympy ----

PI_AS_SRBENCH = sympy.Float("3.1415926535")  # SRBench writes pi into the true model as this number


def to_sympy(node, symbols, pi_as_float=False):
    """The sympy expression of the tree; `symbols`: name -> sympy.Symbol. Integral literals written without a
    point become sympy Integers (`(expt x 2)` is x**2), other literals Floats."""
    kind = node[0]
    if kind == "num":
        v, text = node[1], node[2]
        if re.fullmatch(r"[+-]?\d+", text):
            return sympy.Integer(int(text))
        if RATIONAL.match(text):
            n, d = text.split("/")
            return sympy.Rational(int(n), int(d))
        return sympy.Float(v)
    if kind == "var":
        return symbols[node[1]]
    if kind == "pi":
        return PI_AS_SRBENCH if pi_as_float else sympy.pi
    op, args = node[1], [to_sympy(a, symbols, pi_as_float) for a in node[2]]
    if op == "acos" and pi_as_float and args[0] == -1:  # (acos -1) is how a DMCI program writes pi
        return PI_AS_SRBENCH
    if op == "+":
        return sympy.Add(*args)
    if op == "*":
        return sympy.Mul(*args)
    if op == "-":
        return -args[0] if len(args) == 1 else args[0] - sympy.Add(*args[1:])
    if op == "/":
        return 1 / args[0] if len(args) == 1 else args[0] / sympy.Mul(*args[1:])
    if op == "expt":
        return sympy.Pow(args[0], args[1])
    if op == "log":
        return sympy.log(args[0]) if len(args) == 1 else sympy.log(args[0]) / sympy.log(args[1])
    if op == "atan":
        return sympy.atan(args[0]) if len(args) == 1 else sympy.atan2(args[0], args[1])
    if op == "square":
        return args[0] ** 2
    if op == "min":
        return sympy.Min(*args)
    if op == "max":
        return sympy.Max(*args)
    return {"exp": sympy.exp, "sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "sqrt": sympy.sqrt,
            "abs": sympy.Abs, "tanh": sympy.tanh, "asin": sympy.asin, "acos": sympy.acos}[op](*args)


def to_sexpr(node):
    """The tree as DMCI program text (pi written as its double)."""
    kind = node[0]
    if kind == "num":
        return repr(node[1]) if not re.fullmatch(r"[+-]?\d+", node[2]) else str(int(node[2]))
    if kind == "var":
        return node[1]
    if kind == "pi":
        return repr(math.pi)
    return "(" + " ".join([node[1]] + [to_sexpr(a) for a in node[2]]) + ")"


def names_in(node):
    """The variable names the tree reads."""
    if node[0] == "var":
        return {node[1]}
    if node[0] == "op":
        return set().union(*(names_in(a) for a in node[2])) if node[2] else set()
    return set()

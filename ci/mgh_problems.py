# The classic unconstrained minimisation problems of Moré, Garbow and Hillstrom ("Testing unconstrained
# optimization software", ACM TOMS 7(1), 1981), written as DMCI programs: each problem's sum of squares
# f(x) = sum_i r_i(x)^2 as one expression of its variables x1..xn, with the paper's standard start and its published
# minimum f* (the global one; a run that ends at one of the paper's other local minima is not solved). The one
# source of the suite: ci/fit-objective writes them into dmci/fit/tests/data/mgh/ (the files fit_certified_test
# reads) and checks those files against them, and runs them side by side with scipy.
#
# The programs use only + - * / square expt exp sin cos sqrt atan abs, let and if, so that ci/fit-objective can
# evaluate the same text in Python (with exact gradients by torch's autograd) for scipy.
import math


def num(v):
    """A number as program text: integers plain, others in Python's shortest round-trip form."""
    v = float(v)
    return str(int(v)) if v == int(v) and abs(v) < 1e15 else repr(v)


def sos(residuals):
    return "(+ " + "\n   ".join("(square %s)" % r for r in residuals) + ")"


def x(j):
    return "x%d" % j


def poly(coeffs, z):
    """sum_k coeffs[k] z^k by Horner, as text."""
    e = num(coeffs[-1])
    for c in reversed(coeffs[:-1]):
        e = "(+ %s (* %s %s))" % (num(c), z, e)
    return e


def problems():
    out = []

    def add(number, name, start, minimum, residuals):
        out.append({"number": number, "name": name, "start": [float(s) for s in start], "minimum": float(minimum),
                    "program": sos(residuals)})

    add(1, "Rosenbrock", [-1.2, 1], 0, ["(* 10 (- x2 (* x1 x1)))", "(- 1 x1)"])
    add(2, "FreudensteinRoth", [0.5, -2], 0,
        ["(+ -13 x1 (* (- (* (- 5 x2) x2) 2) x2))", "(+ -29 x1 (* (- (* (+ x2 1) x2) 14) x2))"])
    add(3, "PowellBadlyScaled", [0, 1], 0, ["(- (* 10000 x1 x2) 1)", "(- (+ (exp (- x1)) (exp (- x2))) 1.0001)"])
    add(4, "BrownBadlyScaled", [1, 1], 0, ["(- x1 1000000)", "(- x2 2e-06)", "(- (* x1 x2) 2)"])
    add(5, "Beale", [1, 1], 0,
        ["(- %s (* x1 (- 1 (expt x2 %d))))" % (num(y), i + 1) for i, y in enumerate([1.5, 2.25, 2.625])])
    add(6, "JennrichSampson", [0.3, 0.4], 124.362182355,
        ["(- %d (+ (exp (* %d x1)) (exp (* %d x2))))" % (2 + 2 * i, i, i) for i in range(1, 11)])
    out.append({"number": 7, "name": "HelicalValley", "start": [-1.0, 0.0, 0.0], "minimum": 0.0,
                "program": "(let ((t (/ (atan (/ x2 x1)) 6.283185307179586)))\n"
                           "  (+ (square (* 10 (- x3 (* 10 (if (< x1 0) (+ t 0.5) t)))))\n"
                           "     (square (* 10 (- (sqrt (+ (* x1 x1) (* x2 x2))) 1)))\n"
                           "     (square x3)))"})
    bard = [0.14, 0.18, 0.22, 0.25, 0.29, 0.32, 0.35, 0.39, 0.37, 0.58, 0.73, 0.96, 1.34, 2.10, 4.39]
    add(8, "Bard", [1, 1, 1], 8.21487e-3,
        ["(- %s (+ x1 (/ %d (+ (* %d x2) (* %d x3)))))" % (num(y), i, 16 - i, min(i, 16 - i))
         for i, y in enumerate(bard, 1)])
    gauss = [0.0009, 0.0044, 0.0175, 0.0540, 0.1295, 0.2420, 0.3521, 0.3989, 0.3521, 0.2420, 0.1295, 0.0540, 0.0175,
             0.0044, 0.0009]
    add(9, "Gaussian", [0.4, 1, 0], 1.12793e-8,
        ["(- (* x1 (exp (* -0.5 x2 (square (- %s x3))))) %s)" % (num((8 - i) / 2), num(y))
         for i, y in enumerate(gauss, 1)])
    meyer = [34780, 28610, 23650, 19630, 16370, 13720, 11540, 9744, 8261, 7030, 6005, 5147, 4427, 3820, 3307, 2872]
    add(10, "Meyer", [0.02, 4000, 250], 87.9458551704,
        ["(- (* x1 (exp (/ x2 (+ %d x3)))) %d)" % (45 + 5 * i, y) for i, y in enumerate(meyer, 1)])
    gulf = []
    for i in range(1, 100):
        t = i / 100
        y = 25 + (-50 * math.log(t)) ** (2 / 3)
        gulf.append("(- (exp (- (/ (expt (abs (- %s x2)) x3) x1))) %s)" % (num(y), num(t)))
    add(11, "GulfResearch", [5, 2.5, 0.15], 0, gulf)
    add(12, "Box3D", [0, 10, 20], 0,
        ["(- (exp (* %s x1)) (exp (* %s x2)) (* x3 %s))" % (num(-0.1 * i), num(-0.1 * i),
                                                          num(math.exp(-0.1 * i) - math.exp(-i))) for i in range(1, 11)])
    add(13, "PowellSingular", [3, -1, 0, 1], 0,
        ["(+ x1 (* 10 x2))", "(* %s (- x3 x4))" % num(math.sqrt(5)), "(square (- x2 (* 2 x3)))",
         "(* %s (square (- x1 x4)))" % num(math.sqrt(10))])
    add(14, "Wood", [-3, -1, -3, -1], 0,
        ["(* 10 (- x2 (* x1 x1)))", "(- 1 x1)", "(* %s (- x4 (* x3 x3)))" % num(math.sqrt(90)), "(- 1 x3)",
         "(* %s (+ x2 x4 -2))" % num(math.sqrt(10)), "(/ (- x2 x4) %s)" % num(math.sqrt(10))])
    ko_y = [0.1957, 0.1947, 0.1735, 0.1600, 0.0844, 0.0627, 0.0456, 0.0342, 0.0323, 0.0235, 0.0246]
    ko_u = [4, 2, 1, 0.5, 0.25, 0.167, 0.125, 0.1, 0.0833, 0.0714, 0.0625]
    add(15, "KowalikOsborne", [0.25, 0.39, 0.415, 0.39], 3.07505e-4,
        ["(- %s (/ (* x1 (+ %s (* %s x2))) (+ %s (* %s x3) x4)))" % (num(y), num(u * u), num(u), num(u * u), num(u))
         for y, u in zip(ko_y, ko_u)])
    add(16, "BrownDennis", [25, 5, -5, -1], 85822.2016263563,
        ["(+ (square (- (+ x1 (* %s x2)) %s)) (square (- (+ x3 (* x4 %s)) %s)))"
         % (num(i / 5), num(math.exp(i / 5)), num(math.sin(i / 5)), num(math.cos(i / 5))) for i in range(1, 21)])
    os1 = [0.844, 0.908, 0.932, 0.936, 0.925, 0.908, 0.881, 0.850, 0.818, 0.784, 0.751, 0.718, 0.685, 0.658, 0.628,
           0.603, 0.580, 0.558, 0.538, 0.522, 0.506, 0.490, 0.478, 0.467, 0.457, 0.448, 0.438, 0.431, 0.424, 0.420,
           0.414, 0.411, 0.406]
    add(17, "Osborne1", [0.5, 1.5, -1, 0.01, 0.02], 5.46489e-5,
        ["(- %s (+ x1 (* x2 (exp (* %d x4))) (* x3 (exp (* %d x5)))))" % (num(y), -10 * i, -10 * i)
         for i, y in enumerate(os1)])
    biggs = []
    for i in range(1, 14):
        t = 0.1 * i
        y = math.exp(-t) - 5 * math.exp(-10 * t) + 3 * math.exp(-4 * t)
        biggs.append("(- (+ (* x3 (exp (* %s x1))) (- (* x4 (exp (* %s x2)))) (* x6 (exp (* %s x5)))) %s)"
                     % (num(-t), num(-t), num(-t), num(y)))
    add(18, "BiggsEXP6", [1, 2, 1, 1, 1, 1], 0, biggs)
    os2 = [1.366, 1.191, 1.112, 1.013, 0.991, 0.885, 0.831, 0.847, 0.786, 0.725, 0.746, 0.679, 0.608, 0.655, 0.616,
           0.606, 0.602, 0.626, 0.651, 0.724, 0.649, 0.649, 0.694, 0.644, 0.624, 0.661, 0.612, 0.558, 0.533, 0.495,
           0.500, 0.423, 0.395, 0.375, 0.372, 0.391, 0.396, 0.405, 0.428, 0.429, 0.523, 0.562, 0.607, 0.653, 0.672,
           0.708, 0.633, 0.668, 0.645, 0.632, 0.591, 0.559, 0.597, 0.625, 0.739, 0.710, 0.729, 0.720, 0.636, 0.581,
           0.428, 0.292, 0.162, 0.098, 0.054]
    add(19, "Osborne2", [1.3, 0.65, 0.65, 0.7, 0.6, 3, 5, 7, 2, 4.5, 5.5], 4.01377e-2,
        ["(- %s (+ (* x1 (exp (* %s x5))) (* x2 (exp (* -1 (square (- %s x9)) x6)))"
         " (* x3 (exp (* -1 (square (- %s x10)) x7))) (* x4 (exp (* -1 (square (- %s x11)) x8)))))"
         % (num(y), num(-i / 10), num(i / 10), num(i / 10), num(i / 10)) for i, y in enumerate(os2)])
    watson = []
    n = 6
    for i in range(1, 30):
        t = i / 29
        s1 = "(+ " + " ".join("(* %s %s)" % (num((j - 1) * t ** (j - 2)), x(j)) for j in range(2, n + 1)) + ")"
        s2 = "(+ " + " ".join("(* %s %s)" % (num(t ** (j - 1)), x(j)) for j in range(1, n + 1)) + ")"
        watson.append("(- %s (square %s) 1)" % (s1, s2))
    watson += ["x1", "(- x2 (* x1 x1) 1)"]
    add(20, "Watson", [0] * n, 2.28767e-3, watson)
    n = 10
    add(21, "ExtendedRosenbrock", [-1.2, 1] * (n // 2), 0,
        [r for k in range(1, n, 2) for r in ("(* 10 (- %s (* %s %s)))" % (x(k + 1), x(k), x(k)), "(- 1 %s)" % x(k))])
    n = 12
    ep = []
    for k in range(1, n, 4):
        a, b, c, d = x(k), x(k + 1), x(k + 2), x(k + 3)
        ep += ["(+ %s (* 10 %s))" % (a, b), "(* %s (- %s %s))" % (num(math.sqrt(5)), c, d),
               "(square (- %s (* 2 %s)))" % (b, c), "(* %s (square (- %s %s)))" % (num(math.sqrt(10)), a, d)]
    add(22, "ExtendedPowell", [3, -1, 0, 1] * (n // 4), 0, ep)
    n = 4
    add(23, "PenaltyI", list(range(1, n + 1)), 2.24997e-5,
        ["(* %s (- %s 1))" % (num(math.sqrt(1e-5)), x(i)) for i in range(1, n + 1)] +
        ["(- (+ %s) 0.25)" % " ".join("(* %s %s)" % (x(j), x(j)) for j in range(1, n + 1))])
    sa = num(math.sqrt(1e-5))
    p2 = ["(- x1 0.2)"]
    for i in range(2, n + 1):
        y = math.exp(i / 10) + math.exp((i - 1) / 10)
        p2.append("(* %s (- (+ (exp (/ %s 10)) (exp (/ %s 10))) %s))" % (sa, x(i), x(i - 1), num(y)))
    for i in range(n + 1, 2 * n):
        p2.append("(* %s (- (exp (/ %s 10)) %s))" % (sa, x(i - n + 1), num(math.exp(-0.1))))
    p2.append("(- (+ %s) 1)" % " ".join("(* %d %s %s)" % (n - j + 1, x(j), x(j)) for j in range(1, n + 1)))
    add(24, "PenaltyII", [0.5] * n, 9.37629e-6, p2)
    n = 10
    s = "(+ " + " ".join("(* %d (- %s 1))" % (j, x(j)) for j in range(1, n + 1)) + ")"
    add(25, "VariablyDimensioned", [1 - j / n for j in range(1, n + 1)], 0,
        ["(- %s 1)" % x(i) for i in range(1, n + 1)] + [s, "(square %s)" % s])
    cosines = " ".join("(cos %s)" % x(j) for j in range(1, n + 1))
    add(26, "Trigonometric", [1 / n] * n, 0,
        ["(- %d (+ %s) (* %d (- (cos %s) 1)) (sin %s))" % (n, cosines, i, x(i), x(i)) for i in range(1, n + 1)])
    total = "(+ " + " ".join(x(j) for j in range(1, n + 1)) + ")"
    add(27, "BrownAlmostLinear", [0.5] * n, 0,
        ["(- (+ %s %s) %d)" % (x(i), total, n + 1) for i in range(1, n)] +
        ["(- (* " + " ".join(x(j) for j in range(1, n + 1)) + ") 1)"])
    h = 1 / (n + 1)
    t = [None] + [i * h for i in range(1, n + 1)]
    bv = []
    for i in range(1, n + 1):
        left = x(i - 1) if i > 1 else "0"
        right = x(i + 1) if i < n else "0"
        bv.append("(+ (- (* 2 %s) %s %s) (* %s (expt (+ %s %s 1) 3)))" % (x(i), left, right, num(h * h / 2), x(i),
                                                                          num(t[i])))
    add(28, "DiscreteBoundaryValue", [t[j] * (t[j] - 1) for j in range(1, n + 1)], 0, bv)
    di = []
    for i in range(1, n + 1):
        terms = ["(* %s (expt (+ %s %s 1) 3))" % (num(h / 2 * (1 - t[i]) * t[j]), x(j), num(t[j]))
                 for j in range(1, i + 1)]
        terms += ["(* %s (expt (+ %s %s 1) 3))" % (num(h / 2 * t[i] * (1 - t[j])), x(j), num(t[j]))
                  for j in range(i + 1, n + 1)]
        di.append("(+ %s %s)" % (x(i), " ".join(terms)))
    add(29, "DiscreteIntegralEquation", [t[j] * (t[j] - 1) for j in range(1, n + 1)], 0, di)
    bt = []
    for i in range(1, n + 1):
        left = " (- %s)" % x(i - 1) if i > 1 else ""
        right = " (* -2 %s)" % x(i + 1) if i < n else ""
        bt.append("(+ (* (- 3 (* 2 %s)) %s)%s%s 1)" % (x(i), x(i), left, right))
    add(30, "BroydenTridiagonal", [-1] * n, 0, bt)
    bb = []
    for i in range(1, n + 1):
        js = [j for j in range(max(1, i - 5), min(n, i + 1) + 1) if j != i]
        bb.append("(- (+ (* %s (+ 2 (* 5 %s %s))) 1) %s)"
                  % (x(i), x(i), x(i), " ".join("(* %s (+ 1 %s))" % (x(j), x(j)) for j in js)))
    add(31, "BroydenBanded", [-1] * n, 0, bb)
    m = 20
    add(32, "LinearFullRank", [1] * n, m - n,
        ["(- %s (* %s %s) 1)" % (x(i), num(2 / m), total) for i in range(1, n + 1)] +
        ["(- (* %s %s) 1)" % (num(-2 / m), total) for i in range(n + 1, m + 1)])
    weighted = "(+ " + " ".join("(* %d %s)" % (j, x(j)) for j in range(1, n + 1)) + ")"
    add(33, "LinearRank1", [1] * n, m * (m - 1) / (2 * (2 * m + 1)),
        ["(- (* %d %s) 1)" % (i, weighted) for i in range(1, m + 1)])
    # x1 and xn have no part in f, as in the paper: the program does not use them, and dmci fit keeps their starts
    # (a --bind name the program does not use has no effect, as in scipy).
    inner = "(+ " + " ".join("(* %d %s)" % (j, x(j)) for j in range(2, n)) + ")"
    add(34, "LinearRank1ZeroColumns", [1] * n, (m * m + 3 * m - 6) / (2 * (2 * m - 3)),
        ["-1"] + ["(- (* %d %s) 1)" % (i - 1, inner) for i in range(2, m)] + ["-1"])
    n = 8
    cheb = [[1], [0, 1]]
    for k in range(1, n):
        nxt = [0] + [2 * c for c in cheb[k]]
        for j, c in enumerate(cheb[k - 1]):
            nxt[j] -= c
        cheb.append(nxt)
    cq = []
    for i in range(1, n + 1):
        y = 0 if i % 2 else -1 / (i * i - 1)
        terms = " ".join(poly(cheb[i], "(- (* 2 %s) 1)" % x(j)) for j in range(1, n + 1))
        cq.append("(- (/ (+ %s) %d) %s)" % (terms, n, num(y)))
    add(35, "Chebyquad", [j / (n + 1) for j in range(1, n + 1)], 3.51687e-3, cq)
    return out


def solved(f, minimum):
    """The suite's rule: f within 1e-6 max(1, |f*|) of the published minimum f* (or below it)."""
    return f is not None and f == f and f <= minimum + 1e-6 * max(1.0, abs(minimum))

#!/usr/bin/env python3
"""Writes a long generated program, for timing whole processes (`time build/dmci run prog.scm`).

  gen_long_program.py defines N   N top-level defines (N // 4 groups of four) and one expression
  gen_long_program.py letstar N   one let* of N bindings, each using the one before; its value is N

The text is the same as dmci/testing/LongProgram.h generates for bench/compile_bench.cpp and the
tests; that header describes the shapes.
"""
import sys


CONSTANTS = ["1.5", "1.75", "2.0", "2.25", "2.5", "2.75", "3.0"]


def defines(n):
    groups = max(1, n // 4)
    out = []
    for k in range(groups):
        inner = f"(g{k - 1} x)" if k > 0 else "x"
        out.append(f"(define v{k} {CONSTANTS[k % 7]})")
        out.append(f"(define (f{k} x) (+ x v{k}))")
        out.append(f"(define (g{k} x) (* 0.5 (f{k} {inner})))")
        out.append(f"(define w{k} (let ((y (f{k} 1))) (if (> y 2) (- y 1) y)))")
    last = groups - 1
    out.append(f"(+ (g{last} 1) w{last} (fold-left + 0 (map f0 (list v0 w0))))")
    return "\n".join(out) + "\n"


def letstar(n):
    lines = ["(let* ((x0 1)"]
    for i in range(1, n):
        lines.append(f"       (x{i} (+ x{i - 1} 1))")
    lines.append(f"       )\n  x{n - 1})")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("defines", "letstar"):
        sys.exit("usage: gen_long_program.py defines|letstar N")
    n = int(sys.argv[2])
    sys.stdout.write(defines(n) if sys.argv[1] == "defines" else letstar(n))


if __name__ == "__main__":
    main()

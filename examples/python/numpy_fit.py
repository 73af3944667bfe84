#!/usr/bin/env python3
"""A NumPy fit of a program's constants: logistic growth, written in Scheme, fitted to noisy observations by
Gauss-Newton in NumPy, with every row's prediction and exact gradient from one batched call (Program.lanes: one
lane per observation). Then the same fit by DMCI's own driver (Program.fit) for comparison.

  PYTHONPATH=build/python /usr/bin/python3 examples/python/numpy_fit.py [--iterations 12]

It prints the loss at each iteration and exits 1 if the loss did not fall.
"""

import argparse
import sys

import numpy as np

import dmci

LOGISTIC = "(/ K (+ 1 (* (/ (- K P0) P0) (exp (- (* r t))))))"


def main():
    ap = argparse.ArgumentParser(description="fit logistic growth's constants by Gauss-Newton on DMCI's lanes")
    ap.add_argument("--iterations", type=int, default=12)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    t = np.linspace(0, 10, 50)
    truth = {"K": 100.0, "P0": 5.0, "r": 0.9}
    y = truth["K"] / (1 + (truth["K"] - truth["P0"]) / truth["P0"] * np.exp(-truth["r"] * t))
    y = y + rng.normal(scale=1.0, size=t.size)

    prog = dmci.Program(LOGISTIC, route="dmci", engine="replay")
    fitted = [n for n in prog.names if n != "t"]
    cols = [prog.names.index(n) for n in fitted]
    theta = np.array([80.0, 10.0, 0.5])  # K, P0, r: a rough start
    P = np.empty((t.size, len(prog.names)))
    P[:, prog.names.index("t")] = t
    values, grads = np.empty(t.size), np.empty_like(P)
    losses = []
    for it in range(a.iterations):
        P[:, cols] = theta
        prog.lanes(P, out=(values, grads))  # every row's prediction and gradient, one call
        r = values - y
        losses.append(float(np.mean(r * r)))
        print("iteration %2d  loss %.6g  %s" % (it, losses[-1], dict(zip(fitted, np.round(theta, 4)))))
        step, *_ = np.linalg.lstsq(grads[:, cols], -r, rcond=None)
        theta = theta + step
    fit = prog.fit(data={"t": t, "y": y}, target="y", bind=dict(zip(fitted, [80.0, 10.0, 0.5])), steps=200)
    print("Gauss-Newton: %s; dmci fit: %s (loss %.6g)" % (dict(zip(fitted, np.round(theta, 4))),
                                                          {k: round(v, 4) for k, v in fit.params.items()}, fit.loss))
    return 0 if losses[-1] < 0.1 * losses[0] else 1


if __name__ == "__main__":
    sys.exit(main())

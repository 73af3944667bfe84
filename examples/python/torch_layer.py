#!/usr/bin/env python3
"""A PyTorch model with a DMCI program as one of its layers: a mechanistic term (exponential decay, written in
Scheme, with its amplitude and rate as the layer's learned parameters) plus a small network that learns what the
mechanism leaves out (its output penalised, so that the mechanism explains what it can). torch.optim.Adam trains both at once; the program's gradient is DMCI's exact one.

  PYTHONPATH=build/python /usr/bin/python3 examples/python/torch_layer.py [--steps 800]

It prints the loss at the start and the end and exits 1 if the loss did not fall.
"""

import argparse
import sys

import torch

import dmci
import dmci.torch

DECAY = "(* amp (exp (- (* rate t))))"  # the mechanism: amp e^(-rate t)


class Hybrid(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mechanism = dmci.torch.ProgramLayer(dmci.Program(DECAY), inputs=["t"], learned={"amp": 1.0, "rate": 0.2})
        self.residual = torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
        self.residual.double()

    def forward(self, t):
        """The prediction, and the network's part of it (penalised, so that the mechanism explains what it can)."""
        correction = self.residual(t.unsqueeze(1)).squeeze(1)
        return self.mechanism(t) + correction, correction


def main():
    ap = argparse.ArgumentParser(description="train a hybrid DMCI + network model with Adam")
    ap.add_argument("--steps", type=int, default=800)
    a = ap.parse_args()
    torch.manual_seed(0)
    t = torch.linspace(0, 4, 80, dtype=torch.float64)
    y = 2.0 * torch.exp(-0.8 * t) + 0.15 * torch.sin(3 * t)  # decay plus what the mechanism does not know
    model = Hybrid()
    opt = torch.optim.Adam(model.parameters(), lr=0.03)
    losses = []
    for step in range(a.steps):
        opt.zero_grad()
        prediction, correction = model(t)
        fit = torch.mean((prediction - y) ** 2)
        (fit + 0.1 * torch.mean(correction**2)).backward()
        loss = fit
        opt.step()
        losses.append(loss.item())
        if step % 100 == 0:
            print("step %4d  loss %.6g" % (step, losses[-1]))
    amp, rate = model.mechanism.learned.tolist()
    print("loss %.6g -> %.6g; amp %.4f, rate %.4f (the data's: 2, 0.8)" % (losses[0], losses[-1], amp, rate))
    return 0 if losses[-1] < 0.1 * losses[0] else 1


if __name__ == "__main__":
    sys.exit(main())

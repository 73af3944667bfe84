"""A DMCI program as a PyTorch operation: `apply(program, params)` maps a B x p tensor of parameters to B values,
and its backward is DMCI's exact gradient. Forward runs the batch as lanes through the C API; only NumPy arrays
of doubles cross that boundary, never a torch type (LibTorch and Python's torch builds must not mix).

    import dmci, dmci.torch
    prog = dmci.Program("(* alpha (* x x))")
    y = dmci.torch.apply(prog, params)                          # params: B x 2 (alpha, x); y: B
    layer = dmci.torch.ProgramLayer(prog, inputs=["x"], learned={"alpha": 1.0})
    y = layer(x)                                                # x: B x 1; alpha an nn.Parameter
"""

import numpy as np
import torch

__all__ = ["apply", "ProgramLayer"]


class _Lanes(torch.autograd.Function):
    """Forward: the program on every row of params (one lane per row). Backward: the upstream gradient times
    DMCI's per-lane gradient, which forward saved."""

    @staticmethod
    def forward(ctx, params, program):
        P = params.detach().to(device="cpu", dtype=torch.float64).contiguous().numpy()
        values, grads = program.lanes(P)
        grads = grads[:, :P.shape[1]]  # the parameters' entries (a literal's, after them, has no input here)
        ctx.save_for_backward(torch.from_numpy(grads).to(device=params.device, dtype=params.dtype))
        return torch.from_numpy(values).to(device=params.device, dtype=params.dtype)

    @staticmethod
    def backward(ctx, grad_values):
        (grads,) = ctx.saved_tensors
        return grad_values.unsqueeze(1) * grads, None


def apply(program, params):
    """The program's values on each row of `params` (B x p, in program.names' order; a 1-D tensor of p is one
    lane and gives a 0-D value), differentiable in params."""
    if params.dim() == 1:
        return _Lanes.apply(params.unsqueeze(0), program)[0]
    if params.dim() != 2 or params.shape[1] != len(program.names):
        raise ValueError("params: shape (B, %d) for %s, got %s" % (len(program.names), program.names,
                                                                   tuple(params.shape)))
    return _Lanes.apply(params, program)


class ProgramLayer(torch.nn.Module):
    """A program as a layer: the names in `inputs` come per row from the layer's input (B x len(inputs)), the
    names in `learned` are the layer's own parameters (nn.Parameter, started at the given values), shared by
    every row. Every name of the program is one or the other."""

    def __init__(self, program, inputs, learned):
        super().__init__()
        self.program = program
        self.inputs = list(inputs)
        self.learned_names = list(learned)
        missing = [n for n in program.names if n not in self.inputs and n not in learned]
        extra = [n for n in self.inputs + self.learned_names if n not in program.names]
        if missing or extra:
            raise ValueError("ProgramLayer: the program's names are %s; not given: %s; not the program's: %s"
                             % (program.names, missing, extra))
        self.learned = torch.nn.Parameter(torch.tensor([float(learned[n]) for n in self.learned_names],
                                                       dtype=torch.float64))
        # Where each program name comes from: (0, column of the input) or (1, index into self.learned).
        self._source = [(0, self.inputs.index(n)) if n in self.inputs else (1, self.learned_names.index(n))
                        for n in program.names]

    def forward(self, x):
        x = x.to(torch.float64)
        if x.dim() == 1:
            x = x.unsqueeze(1)
        b = x.shape[0]
        cols = [x[:, k] if src == 0 else self.learned[k].expand(b) for src, k in self._source]
        params = torch.stack(cols, dim=1) if cols else x.new_zeros((b, 0))
        return apply(self.program, params)

    def extra_repr(self):
        return "names=%s, inputs=%s, learned=%s" % (self.program.names, self.inputs, self.learned_names)

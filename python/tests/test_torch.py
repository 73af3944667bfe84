"""dmci.torch: a DMCI program as a differentiable PyTorch operation. torch.autograd.gradcheck passes on a model
whose middle layer is a DMCI program, the layer's values and gradients are the API's, and misuse raises."""

import numpy as np
import pytest
import torch

import dmci
import dmci.torch


@pytest.mark.parametrize("engine", ["native", "replay"])
def test_gradcheck_through_a_model_with_a_dmci_layer(engine):
    torch.manual_seed(0)
    prog = dmci.Program("(define (f k acc) (if (< k 1) acc (f (- k 1) (+ (* acc x) alpha)))) (sin (f 3 x))",
                        engine=engine)
    assert prog.names == ["x", "alpha"]
    net = torch.nn.Linear(3, 2).double()

    def model(inputs, weight):
        h = torch.tanh(torch.nn.functional.linear(inputs, weight, net.bias))  # B x 2: (x, alpha) per row
        return (dmci.torch.apply(prog, h) ** 2).sum()

    inputs = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    weight = net.weight.detach().clone().requires_grad_(True)
    assert torch.autograd.gradcheck(model, (inputs, weight), eps=1e-6, atol=1e-7)


def test_gradcheck_fails_on_a_wrong_gradient():
    # The check above can fail: a program whose backward is off (a wrong adjoint, planted here) is caught.
    prog = dmci.Program("(* x x)")

    class Wrong(torch.autograd.Function):
        @staticmethod
        def forward(ctx, p):
            ctx.save_for_backward(p)
            return dmci.torch.apply(prog, p)

        @staticmethod
        def backward(ctx, g):
            (p,) = ctx.saved_tensors
            return g.unsqueeze(1) * 1.01 * 2 * p

    p = torch.randn(4, 1, dtype=torch.float64, requires_grad=True)
    assert not torch.autograd.gradcheck(Wrong.apply, (p,), raise_exception=False)


def test_apply_is_the_lanes():
    prog = dmci.Program("(* alpha (* x x))")
    P = torch.tensor([[2.0, 3.0], [0.5, -1.0]], dtype=torch.float64, requires_grad=True)
    y = dmci.torch.apply(prog, P)
    values, grads = prog.lanes(P.detach().numpy())
    assert np.array_equal(y.detach().numpy(), values)
    y.sum().backward()
    assert np.array_equal(P.grad.numpy(), grads)
    one = dmci.torch.apply(prog, torch.tensor([2.0, 3.0], dtype=torch.float64))
    assert one.dim() == 0 and one.item() == 18.0


def test_a_layer_learns_its_constant():
    layer = dmci.torch.ProgramLayer(dmci.Program("(* alpha (* x x))"), inputs=["x"], learned={"alpha": 0.5})
    x = torch.linspace(-1, 1, 20, dtype=torch.float64)
    y = 3.0 * x * x
    opt = torch.optim.Adam(layer.parameters(), lr=0.1)
    for _ in range(200):
        opt.zero_grad()
        loss = torch.mean((layer(x) - y) ** 2)
        loss.backward()
        opt.step()
    assert abs(layer.learned.item() - 3.0) < 1e-2


def test_layer_and_apply_misuse():
    prog = dmci.Program("(* alpha (* x x))")
    with pytest.raises(ValueError):
        dmci.torch.ProgramLayer(prog, inputs=["x"], learned={})
    with pytest.raises(ValueError):
        dmci.torch.ProgramLayer(prog, inputs=["x", "y"], learned={"alpha": 1.0})
    with pytest.raises(ValueError):
        dmci.torch.apply(prog, torch.ones(3, 3, dtype=torch.float64))
    bad = dmci.Program("(if (< x 0) (car x) x)", route="direct", engine="native")
    with pytest.raises(dmci.Error) as e:
        dmci.torch.apply(bad, torch.tensor([[1.0], [-1.0]], dtype=torch.float64))
    assert "lane 1" in str(e.value)

"""loss.linear_cross_entropy (the output layer fused with the label-smoothed loss) against
F.cross_entropy(F.linear(...)): loss and gradients, at chunk boundaries, in fp32 and bf16."""
import os
import sys

import pytest
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"))
from softalign_ref.loss import linear_cross_entropy  # noqa: E402


def _case(n, l, v, seed):
    g = torch.Generator().manual_seed(seed)
    x = (torch.randn(n, l, generator=g) * 2).requires_grad_()
    w = (torch.randn(v, l, generator=g) / l ** 0.5).requires_grad_()
    b = torch.randn(v, generator=g).requires_grad_()
    y = torch.randint(0, v, (n,), generator=g)
    return x, w, b, y


def _grads(loss, *ts):
    for t in ts:
        t.grad = None
    loss.backward()
    return [t.grad.clone() for t in ts]


@pytest.mark.parametrize("n,chunk", [(1, 4), (7, 4), (8, 4), (9, 4), (300, 256), (5, 256)])
@pytest.mark.parametrize("eps", [0.0, 0.1])
def test_equals_cross_entropy_in_fp32(n, chunk, eps):
    x, w, b, y = _case(n, 11, 37, n)
    want = F.cross_entropy(F.linear(x, w, b), y, reduction="sum", label_smoothing=eps)
    gw = _grads(want * 1.7, x, w, b)
    got = linear_cross_entropy(x, w, b, y, eps, chunk)
    gg = _grads(got * 1.7, x, w, b)
    assert got.dtype == torch.float32
    assert float(got) == pytest.approx(float(want), rel=1e-5)
    for a, e in zip(gg, gw):
        assert torch.allclose(a, e, rtol=1e-4, atol=1e-5)


def test_bf16_autocast_is_close_to_fp32():
    x, w, b, y = _case(600, 64, 500, 3)
    want = F.cross_entropy(F.linear(x, w, b), y, reduction="sum", label_smoothing=0.1)
    gw = _grads(want, x, w, b)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        got = linear_cross_entropy(x, w, b, y, 0.1)
    gg = _grads(got, x, w, b)
    assert got.dtype == torch.float32
    assert float(got) == pytest.approx(float(want), rel=1e-2)
    for a, e in zip(gg, gw):
        assert a.dtype == torch.float32
        cos = float((a.double().flatten() @ e.double().flatten()) / (a.double().norm() * e.double().norm()))
        assert cos > 0.999


def test_no_rows():
    x, w, b, y = _case(3, 5, 9, 1)
    loss = linear_cross_entropy(x[:0], w, b, y[:0], 0.1)
    assert float(loss) == 0.0
    loss.backward()
    assert float(w.grad.abs().sum()) == 0.0

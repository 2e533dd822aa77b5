"""loss.linear_cross_entropy (the output layer fused with the label-smoothed loss) against
F.cross_entropy(F.linear(...)): loss and gradients, at chunk boundaries, in fp32 and bf16."""
import math
import os
import sys

import pytest
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"))
from softalign_ref.loss import linear_cross_entropy, sample_candidates  # noqa: E402


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


def _assert_bf16_close(got, want, grads, want_grads):
    """A bf16-autocast loss and its gradients against fp32: fp32 results, loss within 1 %,
    each gradient's cosine with fp32's above 0.999."""
    assert got.dtype == torch.float32
    assert float(got) == pytest.approx(float(want), rel=1e-2)
    for a, e in zip(grads, want_grads):
        assert a.dtype == torch.float32
        cos = float((a.double().flatten() @ e.double().flatten()) / (a.double().norm() * e.double().norm()))
        assert cos > 0.999


def test_bf16_autocast_is_close_to_fp32():
    x, w, b, y = _case(600, 64, 500, 3)
    want = F.cross_entropy(F.linear(x, w, b), y, reduction="sum", label_smoothing=0.1)
    gw = _grads(want, x, w, b)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        got = linear_cross_entropy(x, w, b, y, 0.1)
    _assert_bf16_close(got, want, _grads(got, x, w, b), gw)


def test_no_rows():
    x, w, b, y = _case(3, 5, 9, 1)
    loss = linear_cross_entropy(x[:0], w, b, y[:0], 0.1)
    assert float(loss) == 0.0
    loss.backward()
    assert float(w.grad.abs().sum()) == 0.0


def _sampled_reference(x, w, b, y, eps, ids, log_q, pos_target, vocab):
    """The sampled softmax's loss (loss.py's docstring) with plain autograd ops."""
    z = F.linear(x, w[ids], b[ids])
    zc = z - log_q
    return (torch.logsumexp(zc, 1) - (1 - eps) * z.gather(1, pos_target[:, None]).squeeze(1)
            - (eps / vocab) * (z * torch.exp(-log_q)).sum(1)).sum()


def test_sample_candidates_holds_every_target_and_draws_the_rest():
    y = torch.tensor([5, 9, 5, 30, 2, 9])
    ids, log_q, t = sample_candidates(y, 50, 12, torch.Generator().manual_seed(3))
    assert ids.numel() == 12 and ids.unique().numel() == 12
    assert ids[:4].tolist() == [2, 5, 9, 30]           # the batch's targets first, q = 1
    assert torch.equal(ids[t], y)                      # targets as positions in ids
    assert log_q[:4].tolist() == [0.0] * 4
    assert torch.allclose(log_q[4:], torch.full((8,), math.log(8 / 46)))
    again = sample_candidates(y, 50, 12, torch.Generator().manual_seed(3))
    assert torch.equal(again[0], ids)                  # the same seed draws the same ids
    other = sample_candidates(y, 50, 12, torch.Generator().manual_seed(4))
    assert not torch.equal(other[0], ids)
    # K at most the batch's distinct targets, or at least V: nothing drawn, no correction
    ids2, log_q2, t2 = sample_candidates(y, 50, 3, torch.Generator().manual_seed(3))
    assert ids2.tolist() == [2, 5, 9, 30] and log_q2 is None and torch.equal(ids2[t2], y)
    ids3, log_q3, _ = sample_candidates(y, 50, 80, torch.Generator().manual_seed(3))
    assert sorted(ids3.tolist()) == list(range(50)) and log_q3 is not None


@pytest.mark.parametrize("eps", [0.0, 0.1])
@pytest.mark.parametrize("n,chunk", [(9, 4), (40, 256)])
def test_sampled_softmax_against_its_formula(eps, n, chunk):
    x, w, b, y = _case(n, 11, 97, n + 1)
    ids, log_q, t = sample_candidates(y, 97, 60, torch.Generator().manual_seed(n))
    assert log_q is not None
    want = _sampled_reference(x, w, b, y, eps, ids, log_q, t, 97)
    gw = _grads(want * 1.3, x, w, b)
    got = linear_cross_entropy(x, w, b, y, eps, chunk, candidates=(ids, log_q, t))
    gg = _grads(got * 1.3, x, w, b)
    assert float(got) == pytest.approx(float(want), rel=1e-5)
    for a, e in zip(gg, gw):
        assert torch.allclose(a, e, rtol=1e-4, atol=1e-5)
    # rows of ids not drawn get no gradient
    unused = torch.ones(97, dtype=torch.bool)
    unused[ids] = False
    assert float(gg[1][unused].abs().sum()) == 0.0 and float(gg[2][unused].abs().sum()) == 0.0


def test_sampled_softmax_over_the_whole_vocabulary_is_the_full_loss():
    # every id a candidate: q = 1 everywhere would be the full softmax; drawn ids have
    # q = (K - u) / (V - u) = 1 when K = V, so log q = 0
    x, w, b, y = _case(33, 11, 40, 5)
    ids, log_q, t = sample_candidates(y, 40, 40, torch.Generator().manual_seed(1))
    assert torch.allclose(log_q, torch.zeros(40))
    want = F.cross_entropy(F.linear(x, w, b), y, reduction="sum", label_smoothing=0.1)
    gw = _grads(want, x, w, b)
    got = linear_cross_entropy(x, w, b, y, 0.1, candidates=(ids, log_q, t))
    gg = _grads(got, x, w, b)
    assert float(got) == pytest.approx(float(want), rel=1e-5)
    for a, e in zip(gg, gw):
        assert torch.allclose(a, e, rtol=1e-4, atol=1e-5)


def test_sampled_softmax_estimates_the_full_gradient():
    # The point of the correction: averaged over draws, the weight gradient approaches the
    # full softmax's (without it, the drawn ids' rows would be pushed down too little).
    x, w, b, y = _case(64, 8, 400, 11)
    full = _grads(linear_cross_entropy(x, w, b, y, 0.1), w)[0]
    mean = torch.zeros_like(full)
    draws = 300
    for s in range(draws):
        cand = sample_candidates(y, 400, 120, torch.Generator().manual_seed(s))
        mean += _grads(linear_cross_entropy(x, w, b, y, 0.1, candidates=cand), w)[0] / draws
    cos = float((mean.flatten() @ full.flatten()) / (mean.norm() * full.norm()))
    assert cos > 0.98, cos


def test_sampled_softmax_under_bf16_autocast_is_close_to_fp32():
    x, w, b, y = _case(600, 64, 500, 4)
    cand = sample_candidates(y, 500, 450, torch.Generator().manual_seed(2))
    assert cand[1] is not None
    want = linear_cross_entropy(x, w, b, y, 0.1, candidates=cand)
    gw = _grads(want, x, w, b)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        got = linear_cross_entropy(x, w, b, y, 0.1, candidates=cand)
    _assert_bf16_close(got, want, _grads(got, x, w, b), gw)

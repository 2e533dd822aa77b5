"""Padding never changes a sentence's result; the step API computes what forward computes."""
import torch

from conftest import make_config, make_model, random_batch

LENS = [9, 1, 5, 2, 9, 3]


def test_padding_invariance(variant):
    cfg = make_config(variant)
    model = make_model(variant)
    src, src_len, tgt = random_batch(cfg, LENS, T=7)
    # A target padded differently per sentence must not matter either (steps are causal).
    with torch.no_grad():
        logits, attn = model(src, src_len, tgt)
        for b, n in enumerate(LENS):
            for T in (7, 4):
                l1, a1 = model(src[b:b + 1, :n], src_len[b:b + 1], tgt[b:b + 1, :T])
                assert torch.allclose(l1[0], logits[b, :T], atol=1e-5, rtol=0), (variant, b, T)
                assert torch.allclose(a1[0], attn[b, :T, :n], atol=1e-5, rtol=0), (variant, b, T)
            # nothing is attended at padding
            assert float(attn[b, :, n:].abs().sum()) == 0.0


def test_step_api_matches_forward(variant):
    cfg = make_config(variant)
    model = make_model(variant, seed=3)
    src, src_len, tgt = random_batch(cfg, LENS, T=8, seed=5)
    with torch.no_grad():
        logits, attn = model(src, src_len, tgt)
        enc = model.encode(src, src_len)
        state = model.init_state(enc)
        for t in range(tgt.size(1)):
            l, a, state = model.step(enc, tgt[:, t], state, t)
            assert torch.allclose(l, logits[:, t], atol=1e-5, rtol=0), (variant, t)
            assert torch.allclose(a, attn[:, t], atol=1e-6, rtol=0), (variant, t)


def test_training_mode_runs_backward(variant):
    """The training forward (dropout on) produces gradients for every tensor the variant uses."""
    cfg = make_config(variant)
    cfg.dropout = 0.1
    from softalign_ref.model import build_model
    model = build_model(cfg).train()
    src, src_len, tgt = random_batch(cfg, LENS, T=6)
    logits, _ = model(src, src_len, tgt)
    logits.logsumexp(-1).sum().backward()
    missing = [n for n, p in model.named_parameters() if p.grad is None]
    assert not missing, missing

"""training.precision: bf16 products under autocast train every variant to the same
loss and gradients as fp32 within bf16's rounding, keep the states and the loss in
fp32, resume exactly, and resolve "auto" from the CPU's flags."""
import os
import sys

import pytest
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from conftest import make_config, make_model, random_batch  # noqa: E402
from test_train import corpus, write_recipe, weights, assert_same_weights  # noqa: E402,F401
from softalign_ref import data as D  # noqa: E402
from softalign_ref.train import (Trainer, RecipeError, batch_loss, cpu_has_bf16, load_recipe,  # noqa: E402
                                 use_bf16)


def test_precision_values(tmp_path):
    cpu = torch.device("cpu")
    assert not use_bf16("fp32", cpu)
    assert use_bf16("bf16", cpu)
    assert use_bf16("auto", cpu) == cpu_has_bf16()
    with pytest.raises(RecipeError, match="fp32, bf16 or auto"):
        load_recipe(write_recipe(tmp_path / "r.yaml"), ["training.precision=fp16"])
    assert load_recipe(write_recipe(tmp_path / "r.yaml"))["training"]["precision"] == "fp32"


def _loss_and_grad(model, b, bf16):
    model.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        feats, alpha = model.features(b.src, b.src_len, b.tgt_in)
        loss = batch_loss(model, b, 0.1)
    assert feats.dtype == torch.float32 and alpha.dtype == torch.float32  # states stay fp32
    assert loss.dtype == torch.float32
    (loss / b.n_tokens).backward()
    grad = torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None]).double()
    return float(loss), grad


def test_bf16_loss_and_gradients_match_fp32(variant):
    cfg = make_config(variant)
    model = make_model(variant).train()
    model.drop.p = 0.0  # the same forward in both passes
    src, src_len, tgt = random_batch(cfg, [9, 4, 12, 6], 8)
    pairs = [(src[i, :int(src_len[i])].tolist(), tgt[i, 1:].tolist()) for i in range(src.size(0))]
    b = D.collate(pairs, list(range(len(pairs))))
    l32, g32 = _loss_and_grad(model, b, False)
    l16, g16 = _loss_and_grad(model, b, True)
    assert l16 == pytest.approx(l32, rel=2e-2)
    cosine = float(g32 @ g16 / (g32.norm() * g16.norm()))
    assert cosine > 0.99, f"gradient cosine {cosine:.4f}"
    assert float(g16.norm()) == pytest.approx(float(g32.norm()), rel=5e-2)


def test_bf16_training_resumes_exactly(corpus, tmp_path):
    rec = load_recipe(write_recipe(tmp_path / "r.yaml"), ["training.precision=bf16"])
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    t = Trainer(rec, corpus, "en", "fr", a, quiet=True)
    assert t.bf16
    t.run(stop_after_steps=5)
    Trainer(rec, corpus, "en", "fr", b, quiet=True).run(stop_after_steps=2)
    Trainer(rec, corpus, "en", "fr", b, quiet=True).run(stop_after_steps=3)
    assert_same_weights(weights(a), weights(b))
    assert all(v.dtype == torch.float32 for v in weights(a).values() if v.is_floating_point())
    assert "bf16 products" in open(os.path.join(b, "train.log")).read()

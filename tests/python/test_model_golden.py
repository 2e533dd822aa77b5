"""The committed golden files (tests/golden) are what the reference code computes today."""
import json
import os

import pytest
import sentencepiece as spm
import torch

from conftest import GOLDEN_DIR
import make_golden
from softalign_ref import export


def load_golden(name):
    with open(os.path.join(GOLDEN_DIR, name, "golden.json"), encoding="utf-8") as f:
        return json.load(f)


def test_every_variant_is_there():
    for name in make_golden.VARIANTS:
        d = os.path.join(GOLDEN_DIR, name)
        spms = ["spm.model"] if make_golden.make_config(name).shared_vocab else ["src.spm.model", "tgt.spm.model"]
        for f in ["model.safetensors", "golden.json"] + spms:
            assert os.path.isfile(os.path.join(d, f)), f"{name}/{f} is missing: run tests/golden/make_golden.py"
    total = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(GOLDEN_DIR) for f in fs
                if "__pycache__" not in r)
    assert total < 4_000_000  # 2.95 MB with format version 1's variants, 3.92 MB with version 2's four


def close(a, b, tol):
    return torch.allclose(torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64),
                          atol=tol, rtol=0)


@pytest.mark.parametrize("name", sorted(make_golden.VARIANTS))
def test_golden_reproduces(name):
    g = load_golden(name)
    d = os.path.join(GOLDEN_DIR, name)
    model, cfg = export.load(os.path.join(d, "model.safetensors"))
    assert cfg.to_dict() == g["config"] == make_golden.make_config(name).to_dict()
    # the weights are the seeded ones
    seeded, _ = make_golden.model_for(name, g["seed"], g["eos_bias"])
    for k, v in seeded.state_dict().items():
        assert torch.equal(v, model.state_dict()[k]), k
    assert g["min_margin"] > make_golden.MIN_MARGIN
    if cfg.shared_vocab:
        sp_src = sp_tgt = spm.SentencePieceProcessor(model_file=os.path.join(d, "spm.model"))
    else:
        sp_src = spm.SentencePieceProcessor(model_file=os.path.join(d, "src.spm.model"))
        sp_tgt = spm.SentencePieceProcessor(model_file=os.path.join(d, "tgt.spm.model"))
    sentences = [(s["src_text"], s["tgt_text"]) for s in g["sentences"]]
    again, worst = make_golden.compute_golden(model, cfg, sp_src, sp_tgt, sentences)
    assert worst > make_golden.MIN_MARGIN
    for want, got in zip(g["sentences"], again["sentences"]):
        assert got["src_ids"] == want["src_ids"]
        tf_w, tf_g = want["teacher_forced"], got["teacher_forced"]
        assert tf_g["tgt_in"] == tf_w["tgt_in"] and tf_g["tgt_out"] == tf_w["tgt_out"]
        assert close(tf_g["logits"], tf_w["logits"], 1e-5)
        assert close(tf_g["attn"], tf_w["attn"], 1e-6)
        assert [r["name"] for r in got["search"]] == [r["name"] for r in want["search"]]
        for rw, rg in zip(want["search"], got["search"]):
            assert [h["ids"] for h in rg["hyps"]] == [h["ids"] for h in rw["hyps"]], (name, rw["name"])
            for hw, hg in zip(rw["hyps"], rg["hyps"]):
                assert hg["eos"] == hw["eos"]
                # a score sums one float32 log-probability per target token, each as close as the
                # logits above: another CPU's BLAS kernels (AVX2 vs AVX-512) move it by up to that
                # much per token (seen: 1.5e-5 on a 16-token hypothesis)
                tol = 1e-5 * max(1, len(hw["ids"]))
                assert abs(hg["score"] - hw["score"]) < tol and abs(hg["logprob"] - hw["logprob"]) < tol
                assert close(hg["attn"], hw["attn"], 1e-6)


def test_generator_reproduces_committed_bytes(tmp_path):
    """make_golden.py regenerates identical files (needs the DDTP corpus beside the repository)."""
    corpus = os.path.join(make_golden.ROOT, "..", "shared", "data", "ddtp", "en-fr")
    if not os.path.isfile(os.path.join(corpus, "train.en")):
        pytest.skip("the DDTP en-fr corpus is not beside the repository")
    import subprocess
    import sys
    r = subprocess.run([sys.executable, make_golden.__file__, "--corpus", corpus, "--out", str(tmp_path),
                        "--only", "bahdanau_shared", "luong_local_m"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for name in ("bahdanau_shared", "luong_local_m"):
        # weights and tokenizers: the same bytes (seeded RNG, deterministic SentencePiece)
        for f in os.listdir(os.path.join(GOLDEN_DIR, name)):
            if f.endswith(".json"):
                continue
            with open(os.path.join(GOLDEN_DIR, name, f), "rb") as a, open(os.path.join(tmp_path, name, f), "rb") as b:
                assert a.read() == b.read(), f"{name}/{f} differs from what make_golden.py writes now"
        # outputs: the same sentences and ids (floats are compared by test_golden_reproduces;
        # their last digit may depend on the CPU's float arithmetic)
        want = load_golden(name)
        with open(os.path.join(tmp_path, name, "golden.json"), encoding="utf-8") as f:
            got = json.load(f)
        assert (got["seed"], got["eos_bias"]) == (want["seed"], want["eos_bias"])
        ids = lambda g: [(s["src_ids"], s["teacher_forced"]["tgt_in"], [[h["ids"] for h in r["hyps"]] for r in s["search"]])
                         for s in g["sentences"]]
        assert ids(got) == ids(want)


def test_ensembles_reproduce():
    """ensembles.json (ensembles of the committed variants, target prefixes) is what the reference computes."""
    with open(os.path.join(GOLDEN_DIR, "ensembles.json"), encoding="utf-8") as f:
        want = json.load(f)
    got = make_golden.compute_ensembles(GOLDEN_DIR)
    assert [e["members"] for e in got["ensembles"]] == [e["members"] for e in want["ensembles"]]
    for g, w in zip(got["ensembles"], want["ensembles"]):
        assert g["min_margin"] > make_golden.MIN_MARGIN
        for gs, ws in zip(g["sentences"], w["sentences"]):
            assert gs["src_ids"] == ws["src_ids"] and gs["prefix"] == ws["prefix"]
            for gr, wr in zip(gs["search"], ws["search"]):
                assert gr["name"] == wr["name"]
                assert [h["ids"] for h in gr["hyps"]] == [h["ids"] for h in wr["hyps"]]
                assert all(h["ids"][:len(gs["prefix"])] == gs["prefix"] for h in gr["hyps"])
                assert close([h["score"] for h in gr["hyps"]], [h["score"] for h in wr["hyps"]], 1e-5)

"""The command-line tools: models/translate.py and models/export.py on the golden models."""
import json
import os
import subprocess
import sys

import sentencepiece as spm
import torch

from conftest import GOLDEN_DIR, ROOT
from softalign_ref import export

TRANSLATE = os.path.join(ROOT, "models", "translate.py")
EXPORT = os.path.join(ROOT, "models", "export.py")


def run(*args, stdin=""):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True, env=env)


def test_translate_matches_golden_beam():
    d = os.path.join(GOLDEN_DIR, "bahdanau")
    g = json.load(open(os.path.join(d, "golden.json"), encoding="utf-8"))
    sp = spm.SentencePieceProcessor(model_file=os.path.join(d, "tgt.spm.model"))
    s = g["searches"][1]
    assert s["name"] == "beam4"
    lines = [x["src_text"] for x in g["sentences"]]
    r = run(TRANSLATE, d, "--beam", "4", "--nbest", "1", "--alpha", str(s["alpha"]), "--beta", str(s["beta"]),
            "--max-len-a", str(s["max_len_a"]), "--max-len-b", str(s["max_len_b"]),
            stdin="\n".join(lines[:2] + [""] + lines[2:]) + "\n")
    assert r.returncode == 0, r.stderr
    want = [sp.decode([i for i in x["search"][1]["hyps"][0]["ids"]]) for x in g["sentences"]]
    assert r.stdout.split("\n")[:-1] == want[:2] + [""] + want[2:]


def test_translate_bad_model_dir(tmp_path):
    r = run(TRANSLATE, str(tmp_path), "hello")
    assert r.returncode == 1 and "weights file not found" in r.stderr


def test_export_inspect_and_fp16(tmp_path):
    d = os.path.join(GOLDEN_DIR, "luong_local_p")
    r = run(EXPORT, "inspect", d)
    assert r.returncode == 0, r.stderr
    assert "attention.W_p.weight" in r.stdout and "[16, 24]" in r.stdout and "src.spm.model: ok" in r.stdout
    out = str(tmp_path / "half.safetensors")
    r = run(EXPORT, "fp16", d, out)
    assert r.returncode == 0, r.stderr
    half, cfg = export.load(out)
    full, _ = export.load(os.path.join(d, "model.safetensors"))
    for k, v in full.state_dict().items():
        assert torch.equal(half.state_dict()[k], v.half().float()), k
    assert export.read_metadata(out)["golden_seed"] == export.read_metadata(os.path.join(d, "model.safetensors"))["golden_seed"]


def test_export_average_of_checkpoints_and_model_dirs(tmp_path):
    d = os.path.join(GOLDEN_DIR, "bahdanau")
    full, cfg = export.load(os.path.join(d, "model.safetensors"))
    sd = full.state_dict()
    # a second snapshot as a trainer checkpoint (with its state), a third as a model directory
    ck = str(tmp_path / "ck-2.pt")
    torch.save({"model": {k: v * 3 for k, v in sd.items()}, "state": {"step": 7}}, ck)
    other = tmp_path / "m3"
    m3, _ = export.load(os.path.join(d, "model.safetensors"))
    with torch.no_grad():
        for v in m3.state_dict().values():
            v.add_(1.0)
    export.save(m3, cfg, str(other / "model.safetensors"))
    out = str(tmp_path / "avg")
    r = run(EXPORT, "average", out, "--like", d, "--decoding", "alpha=1.5", "--decoding", "beam=6",
            d, str(other), ck)
    assert r.returncode == 0, r.stderr
    avg, _ = export.load(os.path.join(out, "model.safetensors"))
    for k, v in sd.items():  # (v + (v + 1) + 3 v) / 3
        assert torch.allclose(avg.state_dict()[k], (5 * v + 1) / 3, atol=1e-6), k
    meta = export.read_metadata(os.path.join(out, "model.safetensors"))
    assert meta["averaged"]["steps"] == [None, None, 7] and meta["step"] == 7
    assert meta["decoding"]["alpha"] == 1.5 and meta["decoding"]["beam"] == 6
    assert meta["decoding"]["beta"] == cfg.decoding["beta"]
    assert json.load(open(os.path.join(out, "training_state.json")))["step"] == 7
    assert os.path.isfile(os.path.join(out, "src.spm.model")) and os.path.isfile(os.path.join(out, "tgt.spm.model"))
    # snapshots of another model, a missing file and a file that is no checkpoint are clear errors
    r = run(EXPORT, "average", str(tmp_path / "x"), "--like", d, d, os.path.join(GOLDEN_DIR, "luong_local_p"))
    assert r.returncode == 1 and "differ" in r.stderr
    r = run(EXPORT, "average", str(tmp_path / "x"), "--like", d, str(tmp_path / "nope.pt"))
    assert r.returncode == 1 and "checkpoint not found" in r.stderr
    for bad in ("gamma=1", "beam=x", "alpha"):
        r = run(EXPORT, "average", str(tmp_path / "x"), "--like", d, "--decoding", bad, d)
        assert r.returncode == 1 and "--decoding" in r.stderr, bad
    r = run(EXPORT, "average", str(tmp_path / "x"), "--like", d, "--decoding", "nbest=9", d)
    assert r.returncode == 1 and "nbest" in r.stderr
    torch.save([1, 2], str(tmp_path / "bad.pt"))
    r = run(EXPORT, "average", str(tmp_path / "x"), "--like", d, str(tmp_path / "bad.pt"))
    assert r.returncode == 1 and "not a trainer checkpoint" in r.stderr


def test_export_weighted_average(tmp_path):
    """--weights: a weighted mean (e.g. a fine-tuned run mixed with the weights it started from)."""
    d = os.path.join(GOLDEN_DIR, "bahdanau")
    full, cfg = export.load(os.path.join(d, "model.safetensors"))
    sd = full.state_dict()
    ck = str(tmp_path / "ck.pt")
    torch.save({"model": {k: v + 2 for k, v in sd.items()}, "state": {"step": 9}}, ck)
    out = str(tmp_path / "mix")
    r = run(EXPORT, "average", out, "--like", d, "--weights", "1,3", d, ck)
    assert r.returncode == 0, r.stderr
    mix, _ = export.load(os.path.join(out, "model.safetensors"))
    for k, v in sd.items():  # (v + 3 (v + 2)) / 4
        assert torch.allclose(mix.state_dict()[k], v + 1.5, atol=1e-6), k
    meta = export.read_metadata(os.path.join(out, "model.safetensors"))
    assert meta["averaged"]["weights"] == [0.25, 0.75] and meta["step"] == 9
    # equal weights are the plain mean
    r = run(EXPORT, "average", str(tmp_path / "eq"), "--like", d, "--weights", "2,2", d, ck)
    assert r.returncode == 0, r.stderr
    eq, _ = export.load(str(tmp_path / "eq" / "model.safetensors"))
    assert all(torch.allclose(eq.state_dict()[k], v + 1, atol=1e-6) for k, v in sd.items())
    for bad, why in (("1", "1 weights for 2 inputs"), ("1,x", "not numbers"), ("1,0", "positive"),
                     ("1,-1", "positive"), ("1,nan", "positive"), ("1,inf", "positive")):
        r = run(EXPORT, "average", str(tmp_path / "x"), "--like", d, "--weights", bad, d, ck)
        assert r.returncode == 1 and why in r.stderr and "Traceback" not in r.stderr, (bad, r.stderr)

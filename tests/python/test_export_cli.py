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

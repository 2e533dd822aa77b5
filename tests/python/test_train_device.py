"""The trainer's --device option: the device code path (model, optimizer and batches
moved, checkpoints loaded through the CPU, exports and dev BLEU search on a CPU
copy) run on the CPU, where it must give exactly what the default gives; a clear
error when CUDA is asked for and absent; a short CUDA run when a GPU is present."""
import os
import subprocess
import sys

import pytest
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "models"))

from test_train import corpus, write_recipe, weights, assert_same_weights, MODELS  # noqa: E402,F401
from softalign_ref.train import Trainer, load_recipe, RecipeError  # noqa: E402
from softalign_ref import data as D  # noqa: E402


def test_batch_to_moves_every_tensor():
    pairs = [([5, 6, 3], [7, 8]), ([9, 3], [10])]
    b = D.collate(pairs, [0, 1])
    assert b.to("cpu") is b
    meta = b.to("meta")
    for name in ("src", "src_len", "tgt_in", "tgt_out"):
        assert getattr(meta, name).device.type == "meta"
        assert getattr(meta, name).shape == getattr(b, name).shape
    assert meta.n_tokens == b.n_tokens and meta.size == b.size


def test_device_cpu_path_equals_the_default_and_resumes_exactly(corpus, tmp_path):
    rec = load_recipe(write_recipe(tmp_path / "r.yaml"))
    a = str(tmp_path / "default")
    Trainer(rec, corpus, "en", "fr", a, quiet=True).run(stop_after_steps=6)
    b = str(tmp_path / "device")
    t = Trainer(rec, corpus, "en", "fr", b, quiet=True, device="cpu")
    t.run(stop_after_steps=3)                                    # a stop, then a resume
    Trainer(rec, corpus, "en", "fr", b, quiet=True, device=torch.device("cpu")).run(stop_after_steps=3)
    assert_same_weights(weights(a), weights(b))
    assert os.path.isfile(os.path.join(b, "model", "model.safetensors"))   # eval every 4 steps exported
    assert "cuda_rng" not in torch.load(os.path.join(b, "checkpoint.pt"))


def test_bad_or_missing_device_is_a_clear_error(corpus, tmp_path):
    rec = load_recipe(write_recipe(tmp_path / "r.yaml"))
    with pytest.raises(RecipeError, match="cpu or cuda"):
        Trainer(rec, corpus, "en", "fr", str(tmp_path / "x"), quiet=True, device="meta")
    if not torch.cuda.is_available():
        with pytest.raises(RecipeError, match="no usable CUDA"):
            Trainer(rec, corpus, "en", "fr", str(tmp_path / "y"), quiet=True, device="cuda")
        r = subprocess.run([sys.executable, os.path.join(MODELS, "train.py"), "--recipe", str(tmp_path / "r.yaml"),
                            "--corpus", corpus, "--src", "en", "--tgt", "fr", "--out", str(tmp_path / "z"),
                            "--device", "cuda", "--max-steps", "1"], capture_output=True, text=True)
        assert r.returncode == 2 and "no usable CUDA" in r.stderr


def test_cli_device_cpu(corpus, tmp_path):
    out = str(tmp_path / "cli")
    r = subprocess.run([sys.executable, os.path.join(MODELS, "train.py"), "--recipe",
                        write_recipe(tmp_path / "r.yaml"), "--corpus", corpus, "--src", "en", "--tgt", "fr",
                        "--out", out, "--device", "cpu", "--max-steps", "2"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "device cpu" in open(os.path.join(out, "train.log")).read()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here")
def test_cuda_trains_resumes_and_exports(corpus, tmp_path):
    rec = load_recipe(write_recipe(tmp_path / "r.yaml"))
    out = str(tmp_path / "cuda")
    t = Trainer(rec, corpus, "en", "fr", out, quiet=True, device="cuda")
    assert next(t.model.parameters()).is_cuda
    t.run(stop_after_steps=4)
    ck = torch.load(os.path.join(out, "checkpoint.pt"), map_location="cpu")
    assert "cuda_rng" in ck
    t2 = Trainer(rec, corpus, "en", "fr", out, quiet=True, device="cuda")
    t2.run(stop_after_steps=2)
    assert t2.state["step"] == 6
    assert os.path.isfile(os.path.join(out, "model", "model.safetensors"))

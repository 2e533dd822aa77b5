"""Export → load gives identical logits; the file carries the config; bad files are clear errors."""
import json

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

from conftest import VARIANTS, make_config, make_model, random_batch
from softalign_ref import export
from softalign_ref.config import ModelConfig


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_roundtrip_identical_logits(name, tmp_path):
    cfg = make_config(name)
    model = make_model(name, seed=9)
    path = str(tmp_path / "model.safetensors")
    export.save(model, cfg, path, {"corpus": "test", "metrics": {"bleu": 1.5}})
    loaded, cfg2 = export.load(path)
    assert cfg2 == cfg
    src, src_len, tgt = random_batch(cfg, [5, 2, 7], T=6)
    with torch.no_grad():
        a = model(src, src_len, tgt)
        b = loaded(src, src_len, tgt)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    meta = export.read_metadata(path)
    assert meta["corpus"] == "test" and meta["metrics"] == {"bleu": 1.5}
    assert meta["format"] == "softalign-weights" and meta["format_version"] == 1
    # every tensor float32, named as in the state_dict
    with safe_open(path, framework="pt") as f:
        assert set(f.keys()) == set(model.state_dict())
        assert all(f.get_tensor(k).dtype == torch.float32 for k in f.keys())


def test_config_json_roundtrip():
    cfg = make_config("luong_concat_local-p_feed")
    assert ModelConfig.from_json(cfg.to_json()) == cfg
    assert ModelConfig.from_dict(dict(cfg.to_dict(), corpus="x")) == cfg  # extra keys ignored


@pytest.mark.parametrize("change, message", [
    (dict(variant="luong", score="dot", dec_hidden=10, maxout_size=0, att_hidden=0), "dot score needs"),
    (dict(variant="luong", score="location", scope="local-m", window_d=2, maxout_size=0, att_hidden=0), "global scope only"),
    (dict(variant="luong", score="general", scope="local-m", window_d=0, maxout_size=0, att_hidden=0), "window_d >= 1"),
    (dict(variant="luong", score="general", scope="local-p", window_d=2, maxout_size=0, att_hidden=0), "att_hidden >= 1"),
    (dict(variant="rnn"), "variant must be one of"),
    (dict(shared_vocab=True, src_vocab=10, tgt_vocab=12), "shared_vocab"),
    (dict(enc_layers=0), "enc_layers"),
    (dict(format_version=2), "format_version"),
])
def test_invalid_configs(change, message):
    d = make_config("bahdanau").to_dict()
    d.update(change)
    with pytest.raises(ValueError, match=message):
        ModelConfig.from_dict(d).validate()


def _write(path, tensors, meta):
    save_file(tensors, path, metadata=meta)


def test_bad_files(tmp_path):
    cfg = make_config("bahdanau")
    model = make_model("bahdanau")
    good = str(tmp_path / "good.safetensors")
    export.save(model, cfg, good)
    tensors = load_file(good)
    meta = {"config": cfg.to_json()}

    p = str(tmp_path / "missing.safetensors")
    _write(p, {k: v for k, v in tensors.items() if k != "attention.v_a.weight"}, meta)
    with pytest.raises(ValueError, match="missing \\['attention.v_a.weight'\\]"):
        export.load(p)

    p = str(tmp_path / "extra.safetensors")
    _write(p, dict(tensors, **{"attention.W_c.weight": torch.zeros(2, 2)}), meta)
    with pytest.raises(ValueError, match="unexpected \\['attention.W_c.weight'\\]"):
        export.load(p)

    p = str(tmp_path / "shape.safetensors")
    _write(p, dict(tensors, **{"bridge.bias": torch.zeros(3)}), meta)
    with pytest.raises(ValueError, match="bridge.bias has shape \\(3,\\)"):
        export.load(p)

    p = str(tmp_path / "noconfig.safetensors")
    _write(p, tensors, {"other": "x"})
    with pytest.raises(ValueError, match="no 'config'"):
        export.load(p)

    p = str(tmp_path / "badjson.safetensors")
    _write(p, tensors, {"config": "{not json"})
    with pytest.raises(ValueError, match="not valid JSON"):
        export.load(p)

    with pytest.raises(FileNotFoundError):
        export.load(str(tmp_path / "nothing.safetensors"))

    with pytest.raises(ValueError, match="overwrite a config key"):
        export.save(model, cfg, str(tmp_path / "x.safetensors"), {"variant": "luong"})


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_tensor_name_is_documented(name):
    """Each state_dict name appears in WEIGHTS_FORMAT.md's tables (layer index written {k})."""
    import os
    import re
    from conftest import ROOT
    with open(os.path.join(ROOT, "models", "WEIGHTS_FORMAT.md"), encoding="utf-8") as f:
        doc = f.read()
    for key in make_model(name).state_dict():
        generic = re.sub(r"_l\d+", "_l{k}", key)
        base = generic.replace("_reverse", "")
        assert f"`{generic}`" in doc or (generic.endswith("_reverse") and f"`{base}`" in doc and "_reverse" in doc), key

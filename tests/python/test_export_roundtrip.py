"""Export → load gives identical logits; the file carries the config; bad files are clear errors."""
import json

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

from conftest import V2_VARIANTS, VARIANTS, make_config, make_model, random_batch
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
    # version 1 unless a version-2 key differs from its default; version 1 has none of its keys
    assert meta["format"] == "softalign-weights" and meta["format_version"] == (2 if name in V2_VARIANTS else 1)
    assert ("cell" in meta) == (name in V2_VARIANTS) and ("decoder_init" in meta) == (name in V2_VARIANTS)
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
    (dict(format_version=3), "format_version"),
    # format version 2's keys and their impossible combinations
    (dict(cell="lstm"), "format_version 1 has no key cell"),
    (dict(format_version=2, cell="rnn"), "cell must be one of"),
    (dict(format_version=2, enc_directions=3), "enc_directions must be 1 or 2"),
    (dict(format_version=2, reverse_source=True), "reverse_source needs a one-way encoder"),
    (dict(format_version=2, enc_directions=1), "tanh-backward reads the backward direction"),
    (dict(format_version=2, decoder_init="final", dec_layers=2), "final needs enc_layers == dec_layers"),
    (dict(format_version=2, decoder_init="relu-final", enc_hidden=5),
     "relu-final needs enc_directions \\* enc_hidden == dec_hidden"),
    (dict(format_version=2, decoder_init="last-forward"), "last-forward needs enc_hidden == dec_hidden"),
    (dict(format_version=2, decoder_init="bridge"), "decoder_init must be one of"),
    (dict(format_version=2, query_bias=True), "query_bias needs the luong concat score"),
    (dict(format_version=2, combine_bias=True), "combine_bias is a luong option"),
    (dict(format_version=2, combine_tanh=False), "combine_tanh is a luong option"),
    (dict(format_version=2, decoding=dict(beam_rules="marian")), "beam_rules must be one of"),
    (dict(format_version=2, decoding=dict(beam_rules="opennmt", beam=5, nbest=2)), "has no n-best"),
    (dict(format_version=2, decoding=dict(beam_rules="joeynmt", beta=0.2)), "has no coverage penalty"),
])
def test_invalid_configs(change, message):
    d = make_config("bahdanau").to_dict()
    d.update(change)
    with pytest.raises(ValueError, match=message):
        ModelConfig.from_dict(d).validate()


def test_version_2_keys_default_to_version_1():
    """A config whose version-2 keys have their defaults is a version-1 one (written so);
    any other is written as version 2 with every version-2 key, decoder_init resolved."""
    d = make_config("bahdanau").to_dict()
    assert d["format_version"] == 1 and "cell" not in d and "beam_rules" not in d["decoding"]
    explicit = dict(d, format_version=2, cell="gru", enc_directions=2, decoder_init="tanh-backward",
                    decoding=dict(d["decoding"], beam_rules="softalign"))
    assert ModelConfig.from_dict(explicit) == make_config("bahdanau")
    assert ModelConfig.from_dict(explicit).to_dict() == d
    v2 = ModelConfig.from_dict(dict(d, format_version=2, cell="lstm")).validate().to_dict()
    assert v2["format_version"] == 2 and v2["cell"] == "lstm" and v2["decoder_init"] == "tanh-backward"
    assert v2["source_eos"] is True and v2["combine_tanh"] is True and v2["enc_directions"] == 2


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

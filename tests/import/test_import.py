"""softalign-import (importers/softalign_import): the five toolkit fixtures of
tests/import/fixtures translate as the toolkits did (tests/import/check_import.py), and
what the format cannot express is refused with exit code 2, nothing written.

    python3 -m pytest -q tests/import        (skips if torch, sentencepiece, safetensors or PyYAML is missing)
"""
import copy
import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sentencepiece")
pytest.importorskip("safetensors")
pytest.importorskip("yaml")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(HERE, "fixtures")
for p in (os.path.join(ROOT, "importers"), os.path.join(ROOT, "models"), HERE):
    if p not in sys.path:
        sys.path.insert(0, p)

import check_import  # noqa: E402
from softalign_import import ImportRefused, import_checkpoint  # noqa: E402

SPM = {"src_spm": os.path.join(FIXTURES, "data", "spm.en.model"),
       "tgt_spm": os.path.join(FIXTURES, "data", "spm.fr.model")}


@pytest.mark.parametrize("fixture", check_import.ALL)
def test_fixture_parity(fixture):
    """Greedy and beam 5 with the stored beam rules: at least 98 % of the 200 lines are the
    toolkit's own (200/200 when this was written)."""
    res = check_import.check_fixture(os.path.join(FIXTURES, fixture), log=lambda *a: None)
    for kind, (same, n) in res.items():
        assert n == 200 and same >= 196, (fixture, kind, same)


def _config(folder):
    from safetensors import safe_open
    with safe_open(os.path.join(folder, "model.safetensors"), framework="pt") as f:
        return json.loads(f.metadata()["config"])


def test_written_config(tmp_path):
    out = import_checkpoint("opennmt-py", os.path.join(FIXTURES, "onmt-gru-brnn-mlp-bridge", "model.pt"),
                            str(tmp_path / "m"), **SPM)
    c = _config(out)
    assert sorted(os.listdir(out)) == ["model.safetensors", "src.spm.model", "tgt.spm.model"]
    assert c["format_version"] == 2 and c["variant"] == "luong" and c["score"] == "concat"
    assert (c["decoder_init"], c["source_eos"], c["query_bias"], c["combine_bias"], c["combine_tanh"]) == \
        ("relu-final", False, True, True, False)
    assert c["decoding"]["beam_rules"] == "opennmt" and c["decoding"]["max_len_b"] == 250
    # SentencePiece ids 0..1999 (unk 0, bos 1, eos 2); <blank> and the filler appended
    assert (c["unk_id"], c["bos_id"], c["eos_id"], c["pad_id"]) == (0, 1, 2, 2000)
    assert c["src_vocab"] == c["tgt_vocab"] == 2002
    assert c["imported_rows"]["tgt"] == {"2000": "<blank>", "2001": "averyunlikelytoken0"}
    from safetensors.torch import load_file
    t = load_file(os.path.join(out, "model.safetensors"))
    never = t["generator.bias"] == -1e30  # target pieces the toolkit has no row for
    assert int(never.sum()) == 18 and float(t["generator.weight"][never].abs().sum()) == 0


def _onmt_with(tmp_path, **opts):
    ck = torch.load(os.path.join(FIXTURES, "onmt-gru-brnn-general", "model.pt"), map_location="cpu")
    ck = copy.copy(ck)
    ck["opt"] = copy.copy(ck["opt"])
    for k, v in opts.items():
        setattr(ck["opt"], k, v)
    p = str(tmp_path / "changed.pt")
    torch.save(ck, p)
    return p


@pytest.mark.parametrize("opts, message", [
    (dict(encoder_type="transformer"), "encoder_type transformer"),
    (dict(decoder_type="cnn"), "decoder_type cnn"),
    (dict(rnn_type="SRU"), "rnn_type SRU"),
    (dict(copy_attn=True), "copy_attn"),
    (dict(coverage_attn=True), "coverage_attn"),
    (dict(context_gate="both"), "context_gate both"),
    (dict(global_attention="none"), "global_attention none"),
    (dict(global_attention_function="sparsemax"), "global_attention_function sparsemax"),
    (dict(n_src_feats=1), "source features"),
    (dict(position_encoding=True), "position_encoding"),
])
def test_opennmt_refusals(tmp_path, opts, message):
    ckpt = _onmt_with(tmp_path, **opts)
    out = tmp_path / "out"
    with pytest.raises(ImportRefused, match=message) as e:
        import_checkpoint("opennmt-py", ckpt, str(out), **SPM)
    assert "changed.pt" in str(e.value) and not out.exists()


@pytest.mark.parametrize("change, message", [
    (("encoder", "type", "transformer"), "encoder.type transformer"),
    (("decoder", "type", None), "decoder.type transformer"),
    (("decoder", "attention", "multihead"), "decoder.attention multihead"),
    (("decoder", "rnn_type", "lstm"), "one cell type"),
])
def test_joeynmt_refusals(tmp_path, change, message):
    import yaml
    fx = os.path.join(FIXTURES, "joey-gru-luong")
    with open(os.path.join(fx, "config.yaml"), encoding="utf-8") as f:
        cfg = yaml.safe_load(f)
    part, key, value = change
    if value is None:
        del cfg["model"][part][key]
    else:
        cfg["model"][part][key] = value
    cfg_path = tmp_path / "config.yaml"
    cfg_path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    out = tmp_path / "out"
    with pytest.raises(ImportRefused, match=message):
        import_checkpoint("joeynmt", os.path.join(fx, "model.ckpt"), str(out), config=str(cfg_path), **SPM)
    assert not out.exists()


def test_command_line_exit_codes(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "importers"), os.path.join(ROOT, "models")]),
               OMP_NUM_THREADS="1")
    fx = os.path.join(FIXTURES, "joey-gru-bahdanau")
    ok = subprocess.run([sys.executable, "-m", "softalign_import", "joeynmt", os.path.join(fx, "model.ckpt"),
                         "--config", os.path.join(fx, "config.yaml"), "--src-spm", SPM["src_spm"],
                         "--tgt-spm", SPM["tgt_spm"], "--out-dir", str(tmp_path / "ok")],
                        env=env, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert _config(str(tmp_path / "ok"))["decoding"]["beam_rules"] == "joeynmt"
    bad = subprocess.run([sys.executable, "-m", "softalign_import", "opennmt-py",
                          _onmt_with(tmp_path, copy_attn=True), "--src-spm", SPM["src_spm"],
                          "--tgt-spm", SPM["tgt_spm"], "--out-dir", str(tmp_path / "bad")],
                         env=env, capture_output=True, text=True)
    assert bad.returncode == 2 and "copy_attn" in bad.stderr and "changed.pt" in bad.stderr
    assert not (tmp_path / "bad").exists()
    nospm = subprocess.run([sys.executable, "-m", "softalign_import", "joeynmt", os.path.join(fx, "model.ckpt"),
                            "--config", os.path.join(fx, "config.yaml"), "--out-dir", str(tmp_path / "n")],
                           env=env, capture_output=True, text=True)
    assert nospm.returncode == 2 and "--src-spm" in nospm.stderr


def test_the_command_line_starts_without_torch_and_says_it_needs_it(tmp_path):
    """Installed from the wheel, softalign-import starts where PyTorch is missing (its help
    needs none of torch, safetensors, sentencepiece) and says what reading a checkpoint needs."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "importers"))
    hide = "import sys; sys.modules['torch'] = None; from softalign_import.cli import main; sys.exit(main())"
    h = subprocess.run([sys.executable, "-c", hide, "--help"], env=env, capture_output=True, text=True)
    assert h.returncode == 0 and "opennmt-py" in h.stdout, h.stderr
    r = subprocess.run([sys.executable, "-c", hide, "opennmt-py", str(tmp_path / "model.pt"), "--out-dir",
                        str(tmp_path / "out")], env=env, capture_output=True, text=True)
    assert r.returncode == 1 and "needs PyTorch (pip install torch)" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "out").exists()


def test_pretokenized_lists_the_toolkits_tokens(tmp_path):
    import sentencepiece as spm
    fx = os.path.join(FIXTURES, "onmt-gru-brnn-general")
    out = import_checkpoint("opennmt-py", os.path.join(fx, "model.pt"), str(tmp_path / "tok"), None, None,
                            pretokenized=True)
    c = _config(out)
    assert c["pretokenized"] is True and c["src_vocab"] == c["tgt_vocab"] == 1984
    sp = spm.SentencePieceProcessor(model_file=os.path.join(out, "tgt.spm.model"))
    ck = torch.load(os.path.join(fx, "model.pt"), map_location="cpu")
    assert [sp.id_to_piece(i) for i in range(sp.get_piece_size())] == list(ck["vocab"]["tgt"])
    assert (sp.unk_id(), sp.pad_id(), sp.bos_id(), sp.eos_id()) == (c["unk_id"], c["pad_id"], c["bos_id"], c["eos_id"])
    # SentencePiece models and --pretokenized exclude each other
    with pytest.raises(ImportRefused, match="--pretokenized"):
        import_checkpoint("opennmt-py", os.path.join(fx, "model.pt"), str(tmp_path / "both"), pretokenized=True,
                          **SPM)
    assert not (tmp_path / "both").exists()

"""The Vulkan engine against the CPU engine on every format-version-2 variant of the
model tests (conftest.V2_VARIANTS: LSTM cells, one-way and reversed encoders, sources
without EOS, every decoder_init, the attentional biases, combine_tanh), beyond the four
golden ones: each variant with seeded weights at the golden models' vocabularies
(their SentencePiece models), converted by softalign-convert (f32 and int8), then the
same sentences on both engines, one at a time and in a batch, greedy and beam 4 with
n-best 4: identical ids, scores within a bound per step of the hypothesis (f32 2e-5;
int8 2e-3: an activation a rounding apart on the two engines quantizes one level apart)
and attention rows within 1e-5 (int8 1e-3).

ctest sets PYTHONPATH to the module's build folder, SOFTALIGN_BIN_DIR (softalign-convert)
and SOFTALIGN_BINDINGS_REQUIRED=1; without a Vulkan device (or a build without Vulkan)
the module skips.
"""
import os
import subprocess

import pytest
import torch

from conftest import _LUONG, _SIZES, GOLDEN_DIR, ROOT, V2_VARIANTS
from softalign_ref import export
from softalign_ref.config import ModelConfig
from softalign_ref.model import build_model

try:
    import softalign
except ImportError:
    if os.environ.get("SOFTALIGN_BINDINGS_REQUIRED") == "1":
        raise
    pytest.skip("the softalign module is not built (pybind11-dev, python3-dev)", allow_module_level=True)

BIN_DIR = os.environ.get("SOFTALIGN_BIN_DIR", os.path.join(ROOT, "build", "bin"))
SPM = os.path.join(GOLDEN_DIR, "bahdanau")  # vocabularies of 100 pieces each
# Beside V2_VARIANTS: the bridges it has with GRU cells only, with LSTM cells.
VARIANTS = dict(V2_VARIANTS, **{
    "lstm_last_forward_2x2": dict(_LUONG, score="general", cell="lstm", enc_hidden=12, decoder_init="last-forward",
                                  enc_layers=2, dec_layers=2),
    "lstm_tanh_backward_noeos": dict(variant="bahdanau", att_hidden=7, maxout_size=5, cell="lstm",
                                     decoder_init="tanh-backward", source_eos=False),
})
TEXTS = ["with", "Routino data", "- automate tests", "- Multiple ISPs with separate nameservers.",
         "the data of the tests, with separate and multiple nameservers and ISPs - automate"]


def make_file(name, precision, tmp_path):
    cfg = ModelConfig(**dict(_SIZES, **VARIANTS[name], src_vocab=100, tgt_vocab=100,
                             max_src_len=64)).validate()
    model = build_model(cfg)
    g = torch.Generator().manual_seed(7)
    with torch.no_grad():  # conftest.make_model's scale: attention far from uniform
        for _, p in sorted(model.named_parameters()):
            p.copy_(torch.randn(p.shape, generator=g) * (1.0 if p.dim() == 1 else 1.2 / p.shape[-1] ** 0.5))
    weights = str(tmp_path / f"{name}.safetensors")
    export.save(model.eval(), cfg, weights, {})
    out = str(tmp_path / f"{name}.{precision}.softalign")
    args = [os.path.join(BIN_DIR, "softalign-convert"), weights, "-o", out,
            "--src-spm", os.path.join(SPM, "src.spm.model"), "--tgt-spm", os.path.join(SPM, "tgt.spm.model")]
    if precision == "int8":
        args.append("--int8")
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return softalign.Model.load(out)


def translators(model, beam):
    common = dict(beam=beam, nbest=beam, max_batch=4, copy_through=False, repair_placeholders=False)
    cpu = softalign.Translator(model, device="cpu", **common)
    try:
        gpu = softalign.Translator(model, device="vulkan", **common)
    except Exception as e:  # no loader, driver or device: the CPU's tests cover the model
        if "Vulkan" in str(e) or "vulkan" in str(e):
            pytest.skip(f"no Vulkan device: {e}")
        raise
    assert gpu.backend == "vulkan", gpu.backend_reason
    return cpu, gpu


TOLERANCE = {"f32": (2e-5, 1e-5), "int8": (2e-3, 1e-3)}  # per step of a score, of an attention weight


def same(a, b, precision):
    per_step, att = TOLERANCE[precision]
    assert len(a.hypotheses) == len(b.hypotheses)
    for x, y in zip(a.hypotheses, b.hypotheses):
        assert x.ids == y.ids
        assert abs(x.score - y.score) <= per_step * (len(x.ids) + 1), (x.score, y.score)
        if x.attention is not None:
            assert y.attention is not None and x.attention.shape == y.attention.shape
            assert float(abs(x.attention - y.attention).max(initial=0.0)) <= att


@pytest.mark.parametrize("precision", ["f32", "int8"])
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_vulkan_as_the_cpu(name, precision, tmp_path):
    model = make_file(name, precision, tmp_path)
    for beam in (1, 4):
        cpu, gpu = translators(model, beam)
        for text in TEXTS:  # one at a time
            same(cpu.translate_nbest(text, attention=True), gpu.translate_nbest(text, attention=True), precision)
        batch_cpu = cpu.translate_nbest(TEXTS, attention=True)  # in batches of 4
        batch_gpu = gpu.translate_nbest(TEXTS, attention=True)
        for a, b in zip(batch_cpu, batch_gpu):
            same(a, b, precision)

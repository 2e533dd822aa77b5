"""Shared fixtures: a tiny configuration of every model variant, and seeded models."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for p in (os.path.join(ROOT, "models"), os.path.join(ROOT, "tests", "golden")):
    if p not in sys.path:
        sys.path.insert(0, p)

from softalign_ref.deps import missing_module_line  # noqa: E402

try:
    import torch  # noqa: E402
except ModuleNotFoundError as e:
    pytest.exit(missing_module_line(e.name) or str(e), returncode=1)


@pytest.hookimpl(tryfirst=True)
def pytest_exception_interact(node, call, report):
    """A test module or test that cannot import what it needs fails with one line
    naming the setup step that provides it (softalign_ref/deps.py)."""
    exc = call.excinfo.value if call.excinfo is not None else None
    while exc is not None and not isinstance(exc, ModuleNotFoundError):
        exc = exc.__cause__ or exc.__context__  # a module's import error comes wrapped in a CollectError
    line = missing_module_line(exc.name) if exc is not None else None
    if line is not None:
        report.longrepr = line

from softalign_ref.config import ModelConfig  # noqa: E402
from softalign_ref.model import build_model  # noqa: E402

torch.set_num_threads(1)

GOLDEN_DIR = os.path.join(ROOT, "tests", "golden")

_SIZES = dict(emb_size=8, enc_hidden=6, dec_hidden=12, src_vocab=40, tgt_vocab=30, max_src_len=24)
_LUONG = dict(variant="luong", maxout_size=0, att_hidden=0, input_feeding=True)


def _luong(score, scope="global", feed=True, **kw):
    d = dict(_LUONG, score=score, scope=scope, input_feeding=feed)
    if scope != "global":
        d["window_d"] = 2
    if score == "concat" or scope == "local-p":
        d["att_hidden"] = 7
    d.update(kw)
    return d


# Every variant of DESIGN.md §2: decoder types, every score with every scope it
# allows, input feeding on and off, stacked layers, shared vocabulary.
VARIANTS = {
    "encdec": dict(variant="encdec", att_hidden=0, maxout_size=5),
    "encdec_2x2": dict(variant="encdec", att_hidden=0, maxout_size=5, enc_layers=2, dec_layers=2),
    "bahdanau": dict(variant="bahdanau", att_hidden=7, maxout_size=5),
    "bahdanau_2x2_shared": dict(variant="bahdanau", att_hidden=7, maxout_size=5, enc_layers=2, dec_layers=2,
                                shared_vocab=True, tgt_vocab=40),
}
for _score in ("dot", "general", "concat", "location"):
    for _scope in (("global",) if _score == "location" else ("global", "local-m", "local-p")):
        for _feed in (True, False):
            VARIANTS[f"luong_{_score}_{_scope}_{'feed' if _feed else 'nofeed'}"] = _luong(_score, _scope, _feed)
VARIANTS["luong_general_local-p_2x2"] = _luong("general", "local-p", True, enc_layers=2, dec_layers=2)
VARIANTS["luong_concat_global_3x2"] = _luong("concat", "global", False, enc_layers=3, dec_layers=2)

# Format version 2 (WEIGHTS_FORMAT.md): LSTM cells, one-way and reversed encoders, a source
# without EOS, every decoder_init, the attentional biases and combine_tanh. (A source of one
# id, EOS, is then an empty source.) Sizes keep A = enc_directions * n = d where needed.
V2_VARIANTS = {
    "v2_luong_lstm_reversed_final_2x2": _luong("general", "local-p", True, cell="lstm", enc_directions=1,
                                               reverse_source=True, enc_hidden=12, decoder_init="final",
                                               enc_layers=2, dec_layers=2),
    "v2_luong_gru_relu_final_2x2_noeos": _luong("concat", "global", True, source_eos=False,
                                                decoder_init="relu-final", enc_layers=2, dec_layers=2,
                                                query_bias=True, combine_bias=True, combine_tanh=False),
    "v2_luong_lstm_relu_final_oneway_nofeed": _luong("general", "global", False, cell="lstm", enc_directions=1,
                                                     enc_hidden=12, decoder_init="relu-final", enc_layers=2,
                                                     dec_layers=2, source_eos=False),
    "v2_luong_lstm_tanh_final_1x2": _luong("concat", "global", True, cell="lstm", decoder_init="tanh-final",
                                           dec_layers=2, combine_bias=True),
    "v2_luong_gru_last_forward_2x1": _luong("general", "global", True, enc_hidden=12, decoder_init="last-forward",
                                            enc_layers=2),
    "v2_luong_lstm_zero_dot_local_m": _luong("dot", "local-m", True, cell="lstm", enc_directions=1, enc_hidden=12,
                                             decoder_init="zero"),
    "v2_luong_gru_final_location_noeos": _luong("location", "global", True, decoder_init="final",
                                                source_eos=False),
    "v2_bahdanau_lstm_oneway_zero": dict(variant="bahdanau", att_hidden=7, maxout_size=5, cell="lstm",
                                         enc_directions=1, decoder_init="zero"),
    "v2_bahdanau_gru_reversed_tanh_final_noeos": dict(variant="bahdanau", att_hidden=7, maxout_size=5,
                                                      enc_directions=1, reverse_source=True,
                                                      decoder_init="tanh-final", source_eos=False, dec_layers=2),
    "v2_encdec_lstm_oneway_2x2_noeos": dict(variant="encdec", att_hidden=0, maxout_size=5, cell="lstm",
                                            enc_directions=1, enc_layers=2, dec_layers=2, source_eos=False),
}
VARIANTS.update(V2_VARIANTS)


def make_config(name):
    kw = dict(_SIZES)
    kw.update(VARIANTS[name])
    return ModelConfig(**kw).validate()


def make_model(name, seed=0):
    """A model of the variant with seeded weights, larger than PyTorch's default init
    so that attention is far from uniform."""
    cfg = make_config(name)
    model = build_model(cfg)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, p in sorted(model.named_parameters()):
            p.copy_(torch.randn(p.shape, generator=g) * (1.0 if p.dim() == 1 else 1.2 / p.shape[-1] ** 0.5))
    return model.eval()


def random_batch(cfg, lens, T, seed=1):
    """A padded source batch with the given lengths (last id EOS) and target inputs (BOS first)."""
    g = torch.Generator().manual_seed(seed)
    B, S = len(lens), max(lens)
    src = torch.full((B, S), cfg.pad_id, dtype=torch.long)
    for b, n in enumerate(lens):
        src[b, :n - 1] = torch.randint(4, cfg.src_vocab, (n - 1,), generator=g)
        src[b, n - 1] = cfg.eos_id
    tgt = torch.randint(4, cfg.tgt_vocab, (B, T), generator=g)
    tgt[:, 0] = cfg.bos_id
    return src, torch.tensor(lens), tgt


@pytest.fixture(params=sorted(VARIANTS))
def variant(request):
    return request.param

"""Repetition blocking (block_repeats) in the runtime against the reference search
(softalign_ref/search.py, "repetition blocking"): the same ids on every golden model,
greedy and beam, with the option at 1, 2 and 4 pieces; sentences whose search came
within 1e-4 of another decision (a near tie that float32 rounding can flip) are
left out, and most must remain. The golden models' outputs repeat pieces often
(random weights), so the rule changes many of them."""
import glob
import os

import pytest
import sentencepiece as spm
import torch

from softalign_ref import export
from softalign_ref.search import translate_ids, word_start_ids

softalign = pytest.importorskip("softalign") if not os.environ.get("SOFTALIGN_BINDINGS_REQUIRED") else None
if softalign is None:
    import softalign  # noqa: F811  (built: a failed import fails)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN_SRC = os.path.join(ROOT, "tests", "golden")
GOLDEN_BIN = os.environ.get("SOFTALIGN_GOLDEN_BIN_DIR", os.path.join(ROOT, "build", "golden"))
GOLDEN = sorted(os.path.basename(os.path.dirname(p)) for p in glob.glob(os.path.join(GOLDEN_SRC, "*", "golden.json")))

# Sources: the golden sentences' texts, and a few more of the same kind.
TEXTS = ["This package contains the documentation.", "A simple text editor for the desktop.",
         "Open file", "The library is used by many programs to read and write files.",
         "Tools to manage the files of a project.", "Please restart the computer."]


def _tgt_spm(d):
    name = "spm.model" if os.path.isfile(os.path.join(d, "spm.model")) else "tgt.spm.model"
    return spm.SentencePieceProcessor(model_file=os.path.join(d, name))


def _compare(name):
    """(sentences compared, outputs the rule changed) for one golden model."""
    d = os.path.join(GOLDEN_SRC, name)
    ref_model, cfg = export.load(os.path.join(d, "model.safetensors"))
    word_start = word_start_ids(_tgt_spm(d), cfg.tgt_vocab)
    model = softalign.Model.load(os.path.join(GOLDEN_BIN, f"{name}.f32.softalign"))
    sources = [model.encode(t)[0] for t in TEXTS]
    compared = changed = 0
    for beam in (1, 3):
        tr = softalign.Translator(model, beam=beam, max_len_a=1.0, max_len_b=3.0, copy_through=False)
        plain = [r.hypotheses[0].ids for r in tr.translate_nbest(TEXTS, nbest=1, block_repeats=0)]
        for block in (1, 2, 4):
            stats = []
            ref = translate_ids(ref_model, sources, beam=beam, nbest=1, max_len_a=1.0, max_len_b=3.0,
                                block_repeats=block, word_start=word_start, stats=stats)
            got = tr.translate_nbest(TEXTS, nbest=1, block_repeats=block)
            for i, (r, g) in enumerate(zip(ref, got)):
                if stats[i] < 1e-4:
                    continue
                compared += 1
                assert g.hypotheses[0].ids == r[0].ids, (name, beam, block, TEXTS[i])
                changed += g.hypotheses[0].ids != plain[i]
    return compared, changed


def test_block_repeats_matches_the_reference():
    torch.set_num_threads(1)
    total_changed = 0
    for name in GOLDEN:
        compared, changed = _compare(name)
        assert compared >= 0.75 * 2 * 3 * len(TEXTS), (name, compared)
        total_changed += changed
    assert total_changed >= 10, total_changed  # the rule was exercised

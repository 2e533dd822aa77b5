"""decoding.beam_rules opennmt and joeynmt (WEIGHTS_FORMAT.md, "Beam rules"): the reference
search against the plain implementations of tests/import/fixtures/check_mapping.py
(written from the toolkits' code and checked on their own outputs), on random models."""
import math
import os
import sys

import pytest
import torch

from conftest import ROOT, make_model
from softalign_ref.search import translate_ids

sys.path.insert(0, os.path.join(ROOT, "tests", "import", "fixtures"))
import check_mapping  # noqa: E402


class Plain:
    """check_mapping's model interface (encode, step, bos/eos, banned tokens, output) over a
    softalign_ref model, one sentence at a time."""

    def __init__(self, model, rules):
        self.model, self.cfg = model, model.cfg
        self.bos, self.eos = self.cfg.bos_id, self.cfg.eos_id
        if rules == "joeynmt":
            self.banned_always, self.banned_first = [self.cfg.bos_id, self.cfg.pad_id], [self.eos]
        else:
            self.banned_always, self.banned_first = [], []

    def encode(self, src_ids):
        src = torch.tensor([src_ids])
        self.enc = self.model.encode(src, torch.tensor([len(src_ids)]))
        return self.model.init_state(self.enc)

    def step(self, y, state):
        t = getattr(state, "t", 0)
        logits, _, new = self.model.step(self.enc, torch.tensor([y]), state, t)
        new.t = t + 1
        return torch.log_softmax(logits[0].float(), -1), new

    def output(self, ids):
        return list(ids)


SOURCES = [[5, 9, 3], [7, 3], [3], [11, 4, 8, 30, 6, 3], [21, 22, 23, 24, 25, 26, 27, 3]]
NAMES = ["luong_general_global_feed", "v2_luong_gru_relu_final_2x2_noeos", "v2_luong_lstm_tanh_final_1x2",
         "v2_bahdanau_lstm_oneway_zero", "bahdanau"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("rules, K", [("opennmt", 1), ("opennmt", 4), ("joeynmt", 1), ("joeynmt", 4)])
def test_toolkit_rules_match_the_plain_implementations(name, rules, K):
    model = make_model(name, seed=7)
    model.cfg.decoding.update(beam_rules=rules, beta=0.0, nbest=1)
    plain = Plain(model, rules)
    T, alpha = 9, 1.0
    for src in SOURCES:
        got = translate_ids(model, [src], beam=K, alpha=alpha, max_len_a=0.0, max_len_b=T)[0]
        assert len(got) == 1
        with torch.no_grad():
            if K == 1:
                want = check_mapping.greedy(plain, src, T)
            elif rules == "opennmt":
                want = check_mapping.onmt_beam(plain, src, K, T, alpha)
            else:
                want = check_mapping.joey_beam(plain, src, K, T, alpha)
        assert got[0].ids == want, (name, rules, K, src)
        assert got[0].attn.shape[0] == len(got[0].ids) + (1 if got[0].eos else 0)


def test_scores_follow_the_rules():
    model = make_model("luong_general_global_feed", seed=7)
    src = [5, 9, 3]
    for rules, pen in (("opennmt", lambda n: (n + 1) ** 1.0), ("joeynmt", lambda n: ((5.0 + n) / 6.0) ** 1.0)):
        h = translate_ids(model, [src], beam=3, alpha=1.0, beta=0.0, nbest=1, beam_rules=rules)[0][0]
        n = len(h.ids) + (1 if h.eos else 0)  # generated tokens, EOS included
        assert h.score == pytest.approx(h.logprob / pen(n), rel=1e-9)


@pytest.mark.parametrize("kw, message", [
    (dict(nbest=2), "no n-best"), (dict(beta=0.2), "coverage penalty"), (dict(prefix=[5]), "target prefix"),
    (dict(block_repeats=1, word_start=[True] * 30), "repetition blocking"),
])
def test_toolkit_rules_refuse_softalign_features(kw, message):
    model = make_model("luong_general_global_feed", seed=7)
    opts = dict(beam=3, nbest=1, beta=0.0)
    opts.update(kw)
    with pytest.raises(ValueError, match=message):
        translate_ids(model, [[5, 3]], beam_rules="joeynmt", **opts)


def test_joeynmt_bans_bos_pad_and_first_eos():
    model = make_model("luong_general_global_feed", seed=7)
    cfg = model.cfg
    with torch.no_grad():
        model.generator.bias[[cfg.bos_id, cfg.pad_id, cfg.eos_id]] += 50.0  # they would win everywhere
    h = translate_ids(model, [[5, 9, 3]], beam=1, alpha=0.0, beta=0.0, nbest=1, max_len_a=0.0, max_len_b=6,
                      beam_rules="joeynmt")[0][0]
    assert h.ids and not {cfg.bos_id, cfg.pad_id} & set(h.ids) and h.eos and len(h.ids) == 1
    o = translate_ids(model, [[5, 9, 3]], beam=1, alpha=0.0, beta=0.0, nbest=1, max_len_a=0.0, max_len_b=6,
                      beam_rules="opennmt")[0][0]
    assert math.isfinite(o.logprob)

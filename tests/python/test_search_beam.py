"""The reference search follows WEIGHTS_FORMAT.md "Search": greedy = beam 1, beam search
against a plain one-sentence implementation of the contract, batching, ties, limits."""
import math

import pytest
import torch

from conftest import VARIANTS, make_config, make_model
from softalign_ref import search
from softalign_ref.model import DecoderState

SOURCES = [[5, 3], [7, 8, 9, 10, 11, 3], [12, 3], [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 3], [20, 21, 22, 3]]
OPTS = dict(max_len_a=1.0, max_len_b=2.0)


def plain_greedy(model, src):
    """Argmax (first maximum = lower id) at every step until EOS or T tokens."""
    cfg = model.cfg
    with torch.no_grad():
        enc = model.encode(torch.tensor([src]), torch.tensor([len(src)]))
        state = model.init_state(enc)
        y, ids, rows = cfg.bos_id, [], []
        T = math.floor(OPTS["max_len_a"] * len(src) + OPTS["max_len_b"])
        for t in range(T):
            logits, a, state = model.step(enc, torch.tensor([y]), state, t)
            y = int(torch.argmax(logits[0]))
            rows.append(a[0])
            if y == cfg.eos_id:
                return ids, torch.stack(rows)
            ids.append(y)
        return ids, torch.stack(rows)


def plain_beam(model, src, K, alpha, beta, nbest):
    """The contract for one sentence, written as plainly as possible."""
    cfg = model.cfg
    T = math.floor(OPTS["max_len_a"] * len(src) + OPTS["max_len_b"])
    with torch.no_grad():
        enc1 = model.encode(torch.tensor([src]), torch.tensor([len(src)]))
        alive = [([], torch.tensor(0.0), [], model.init_state(enc1))]
        finished = []
        for t in range(T):
            cands = []
            for hi, (toks, lp, rows, st) in enumerate(alive):
                y = toks[-1] if toks else cfg.bos_id
                logits, a, nst = model.step(enc1, torch.tensor([y]), st, t)
                logp = torch.log_softmax(logits[0], -1)
                for v in range(logp.shape[0]):
                    cands.append((-(lp + logp[v]).item(), hi, v, lp + logp[v], a[0], nst))
            cands.sort(key=lambda c: (c[0], c[1], c[2]))
            nxt = []
            for _, hi, v, lp, a, nst in cands[:K - len(finished)]:
                toks, rows = alive[hi][0] + [v], alive[hi][2] + [a]
                if v == cfg.eos_id or t == T - 1:
                    A = torch.stack(rows)
                    cp = 0.0
                    if beta:
                        cp = beta * float(torch.log(A.double().sum(0).clamp(1e-6, 1.0)).sum())
                    score = float(lp) / ((5 + len(toks)) / 6) ** alpha + cp
                    finished.append((score, len(finished), toks[:-1] if v == cfg.eos_id else toks, A))
                else:
                    nxt.append((toks, lp, rows, nst))
            alive = nxt
            if not alive:
                break
    finished.sort(key=lambda f: (-f[0], f[1]))
    return finished[:nbest]


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_beam1_is_greedy(name):
    model = make_model(name, seed=4)
    res = search.translate_ids(model, SOURCES, beam=1, alpha=0.6, beta=0.0, nbest=1, **OPTS)
    greedy = search.greedy(model, SOURCES, alpha=0.6, beta=0.0, **OPTS)
    for src, r, g in zip(SOURCES, res, greedy):
        ids, rows = plain_greedy(model, src)
        assert r[0].ids == ids == g[0].ids, name
        assert torch.allclose(r[0].attn, rows, atol=1e-6)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_beam_matches_plain_implementation(name):
    model = make_model(name, seed=6)
    for alpha, beta in ((0.6, 0.2), (0.0, 0.0)):
        res = search.translate_ids(model, SOURCES, beam=4, alpha=alpha, beta=beta, nbest=4, **OPTS)
        for src, hyps in zip(SOURCES, res):
            ref = plain_beam(model, src, 4, alpha, beta, 4)
            assert [h.ids for h in hyps] == [r[2] for r in ref], (name, src)
            for h, r in zip(hyps, ref):
                assert abs(h.score - r[0]) < 1e-5
                assert torch.allclose(h.attn, r[3], atol=1e-6)


@pytest.mark.parametrize("name", ["bahdanau", "luong_concat_local-p_feed", "encdec_2x2"])
def test_batch_does_not_change_results(name):
    model = make_model(name, seed=8)
    together = search.translate_ids(model, SOURCES, beam=3, alpha=0.6, beta=0.2, nbest=3, **OPTS)
    for src, hyps in zip(SOURCES, together):
        alone = search.translate_ids(model, [src], beam=3, alpha=0.6, beta=0.2, nbest=3, **OPTS)[0]
        assert [h.ids for h in hyps] == [h.ids for h in alone]
        for a, b in zip(hyps, alone):
            assert abs(a.score - b.score) < 1e-5


def test_nbest_sorted_scores_and_rows():
    model = make_model("luong_general_global_feed", seed=2)
    for src, hyps in zip(SOURCES, search.translate_ids(model, SOURCES, beam=5, alpha=0.6, beta=0.2,
                                                        nbest=5, **OPTS)):
        assert 1 <= len(hyps) <= 5
        scores = [h.score for h in hyps]
        assert scores == sorted(scores, reverse=True)
        T = math.floor(OPTS["max_len_a"] * len(src) + OPTS["max_len_b"])
        for h in hyps:
            assert h.attn.shape == (len(h.ids) + (1 if h.eos else 0), len(src))
            assert len(h.ids) + (1 if h.eos else 0) <= T
            assert h.eos or len(h.ids) == T
            assert 3 not in h.ids and 2 not in h.ids or not h.eos
            expect = h.logprob / ((5 + h.attn.shape[0]) / 6) ** 0.6 + 0.2 * float(
                torch.log(h.attn.double().sum(0).clamp(1e-6, 1)).sum())
            assert abs(h.score - expect) < 1e-9


class StubModel:
    """Fixed log-probabilities per step, to test ties and limits."""

    def __init__(self, table, V=8, eos=3):
        from softalign_ref.config import ModelConfig
        self.cfg = ModelConfig(variant="encdec", att_hidden=0, maxout_size=1, emb_size=1, enc_hidden=1,
                               dec_hidden=1, src_vocab=V, tgt_vocab=V, max_src_len=16)
        self.table, self.training = table, False

    def eval(self):
        return self

    def train(self, mode=True):
        return self

    def encode(self, src, src_len):
        from softalign_ref.model import EncoderOutput
        S = src.size(1)
        return EncoderOutput(torch.zeros(src.size(0), S, 2), torch.ones(src.size(0), S, dtype=torch.bool),
                             src_len, None, torch.zeros(src.size(0), 2))

    def init_state(self, enc):
        return DecoderState(torch.zeros(1, enc.H.size(0), 1), None)

    def step(self, enc, y_prev, state, t):
        B, S = y_prev.size(0), enc.H.size(1)
        logits = torch.tensor(self.table(t), dtype=torch.float32).expand(B, -1).clone()
        return logits, torch.full((B, S), 1.0 / S), state


def test_ties_go_to_the_lower_id():
    # tokens 5 and 6 tie at every step; EOS (3) never wins
    row = [0.0, 0.0, 0.0, -50.0, 0.0, 2.0, 2.0, 1.0]
    stub = StubModel(lambda t: row)
    g = search.translate_ids(stub, [[4, 3]], beam=1, alpha=0.0, beta=0.0, max_len_a=0.0, max_len_b=3.0, nbest=1)
    assert g[0][0].ids == [5, 5, 5] and not g[0][0].eos
    b = search.translate_ids(stub, [[4, 3]], beam=2, alpha=0.0, beta=0.0, max_len_a=0.0, max_len_b=2.0, nbest=2)
    # step 1 keeps (hyp 0, 5), (hyp 0, 6); step 2: four tied candidates, lower hypothesis first
    assert [h.ids for h in b[0]] == [[5, 5], [5, 6]]


def test_beam_shrinks_as_hypotheses_finish():
    # step 0: EOS is the best token, so one hypothesis finishes at once and beam 3 keeps 2 alive
    def table(t):
        return [-9.0, -9.0, -9.0, 3.0, 2.0, 1.0, 0.0, -1.0] if t == 0 else [-9.0, -9.0, -9.0, -9.0, 1.0, -2.0, -2.0, -2.0]
    stub = StubModel(table)
    res = search.translate_ids(stub, [[4, 3]], beam=3, alpha=0.0, beta=0.0, max_len_a=0.0, max_len_b=2.0, nbest=3)[0]
    assert sorted(tuple(h.ids) for h in res) == [(), (4, 4), (5, 4)]
    assert res[0].ids == [] and res[0].eos


def test_bad_arguments_are_clear_errors():
    model = make_model("bahdanau")
    with pytest.raises(ValueError, match="empty"):
        search.translate_ids(model, [[]], beam=1)
    with pytest.raises(ValueError, match="max_src_len"):
        search.translate_ids(model, [[5] * 30 + [3]], beam=1)
    with pytest.raises(ValueError, match="vocabulary"):
        search.translate_ids(model, [[500, 3]], beam=1)
    with pytest.raises(ValueError, match="nbest"):
        search.translate_ids(model, [[5, 3]], beam=2, nbest=3)


def test_ensemble():
    a, b = make_model("bahdanau", seed=1), make_model("bahdanau", seed=2)
    opts = dict(beam=3, alpha=0.6, beta=0.2, nbest=3, **OPTS)
    single = search.translate_ids(a, SOURCES, **opts)
    same = search.translate_ids([a, make_model("bahdanau", seed=1)], SOURCES, **opts)
    for x, y in zip(single, same):  # an ensemble of equal models is that model
        assert [h.ids for h in x] == [h.ids for h in y]
        assert all(abs(h.score - g.score) < 1e-5 for h, g in zip(x, y))
    # two different models: greedy = argmax of the mean log-probabilities, by hand
    src = SOURCES[1]
    got = search.translate_ids([a, b], [src], beam=1, nbest=1, alpha=0.0, beta=0.0, **OPTS)[0][0]
    with torch.no_grad():
        encs = [m.encode(torch.tensor([src]), torch.tensor([len(src)])) for m in (a, b)]
        states = [m.init_state(e) for m, e in zip((a, b), encs)]
        y, ids = 2, []
        for t in range(math.floor(OPTS["max_len_a"] * len(src) + OPTS["max_len_b"])):
            outs = [m.step(e, torch.tensor([y]), s, t) for m, e, s in zip((a, b), encs, states)]
            states = [o[2] for o in outs]
            y = int(torch.argmax((torch.log_softmax(outs[0][0], -1) + torch.log_softmax(outs[1][0], -1)) / 2))
            if y == 3:
                break
            ids.append(y)
    assert got.ids == ids
    with pytest.raises(ValueError, match="same vocabularies"):
        search.translate_ids([a, make_model("bahdanau_2x2_shared")], [src], beam=1)


def test_prefix():
    model = make_model("luong_general_global_feed", seed=3)
    opts = dict(alpha=0.6, beta=0.2, **OPTS)
    src = SOURCES[1]
    plain = search.translate_ids(model, [src], beam=3, nbest=3, **opts)[0]
    empty = search.translate_ids(model, [src], beam=3, nbest=3, prefix=[], **opts)[0]
    assert [(h.ids, h.score) for h in plain] == [(h.ids, h.score) for h in empty]
    # greedy forced along its own beginning: nothing changes
    greedy = search.greedy(model, [src], **opts)[0][0]
    for k in range(1, min(3, len(greedy.ids)) + 1):
        again = search.greedy(model, [src], prefix=greedy.ids[:k], **opts)[0][0]
        assert again.ids == greedy.ids and again.logprob == greedy.logprob
    # a prefix the model would not choose: every hypothesis starts with it; greedy by hand
    prefix = [7, 7, 9]
    for hyps in search.translate_ids(model, [src], beam=3, nbest=3, prefix=prefix, **opts)[0:1]:
        assert all(h.ids[:3] == prefix for h in hyps)
    got = search.greedy(model, [src], prefix=prefix, alpha=0.0, beta=0.0, **OPTS)[0][0]
    with torch.no_grad():
        enc = model.encode(torch.tensor([src]), torch.tensor([len(src)]))
        state = model.init_state(enc)
        y, ids, lp = 2, [], torch.zeros(())
        for t in range(math.floor(OPTS["max_len_a"] * len(src) + OPTS["max_len_b"])):
            logits, _, state = model.step(enc, torch.tensor([y]), state, t)
            logp = torch.log_softmax(logits[0].float(), -1)
            y = prefix[t] if t < len(prefix) else int(torch.argmax(logp))
            lp = lp + logp[y]
            if y == 3:
                break
            ids.append(y)
    assert got.ids == ids and abs(got.logprob - float(lp)) < 1e-6
    T = math.floor(OPTS["max_len_a"] * len(src) + OPTS["max_len_b"])
    with pytest.raises(ValueError, match="maximum target length"):
        search.greedy(model, [src], prefix=[5] * T, **OPTS)
    with pytest.raises(ValueError, match="EOS"):
        search.greedy(model, [src], prefix=[5, 3], **OPTS)

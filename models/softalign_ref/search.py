"""The reference translator: batched greedy and beam search (WEIGHTS_FORMAT.md, "Search").

The C++ runtime implements the same algorithm and must produce the same ids, so
this file follows the contract literally:
- log-probabilities are log_softmax of the logits in float32, summed in float32;
- max target length T = max(1, floor(max_len_a * S + max_len_b)) tokens, EOS included;
- each step keeps the K - finished best candidates (ties: lower hypothesis
  index, then lower token id); a kept EOS candidate is finished; after the
  step that produced the T-th token every alive hypothesis is finished as it is;
- finished score (double) = logp / ((5 + |Y|) / 6)^alpha
  + beta * sum_j log(min(max(sum_i a_ij, 1e-6), 1));
- n-best sorted by score, best first (ties: earlier finished first);
- greedy is beam 1;
- an ensemble averages the models' log-probabilities (and attention rows);
- a target prefix (ids, no BOS/EOS) is forced: at step t < len(prefix) the one
  hypothesis continues with prefix[t] alone (its log-probability counted like any
  other token's), then the search goes on as usual; every hypothesis starts with
  the prefix, and len(prefix) must be less than T;
- repetition blocking (block_repeats n_max > 0, after the prefix): a hypothesis
  with tokens y (t of them) may not take, for each n <= n_max with t >= 2n - 1,
  the id y[t-n] when y[t-n+1:t] == y[t-2n+1:t-n] and the group's first piece
  (that id for n = 1, else y[t-n+1]) starts a word (its piece starts with
  U+2581): no word or group of words repeated right after itself; the step's
  candidates are then the best of the others.

Format version 2's `decoding.beam_rules` (WEIGHTS_FORMAT.md, "Beam rules"): `opennmt`
and `joeynmt` are those toolkits' beam searches (toolkit_search below), so that an
imported model translates as it did there; n-best, coverage penalty, prefixes and
repetition blocking are `softalign`-only.
"""
import math
from dataclasses import dataclass, field

import torch


@dataclass
class Hypothesis:
    ids: list            # output ids, BOS and EOS excluded
    score: float         # finished score (length and coverage penalties applied)
    logprob: float       # summed float32 log-probability
    attn: torch.Tensor   # [rows, S] attention rows: one per generated token (EOS included when generated)
    eos: bool            # True if it ended with EOS, False if cut at the maximum length


@dataclass
class _Partial:
    tokens: list
    logprob: torch.Tensor  # float32 scalar
    rows: list = field(default_factory=list)


def max_target_len(S, max_len_a, max_len_b):
    """T = floor(max_len_a * S + max_len_b) in double precision, at least 1."""
    return max(1, int(math.floor(float(max_len_a) * S + float(max_len_b))))


def length_penalty(n_tokens, alpha):
    return ((5.0 + n_tokens) / 6.0) ** alpha


def coverage_penalty(attn, beta):
    """beta * sum_j log(min(max(sum_i a_ij, 1e-6), 1)), in double; 0 when beta = 0."""
    if beta == 0:
        return 0.0
    cov = attn.double().sum(0).clamp(min=1e-6, max=1.0)
    return float(beta) * float(torch.log(cov).sum())


def finished_score(logprob, n_tokens, attn, alpha, beta):
    return float(logprob) / length_penalty(n_tokens, alpha) + coverage_penalty(attn, beta)


def _pad(src_ids_list, pad_id):
    lens = [len(s) for s in src_ids_list]
    src = torch.full((len(src_ids_list), max(lens)), pad_id, dtype=torch.long)
    for b, s in enumerate(src_ids_list):
        src[b, :len(s)] = torch.tensor(s, dtype=torch.long)
    return src, torch.tensor(lens, dtype=torch.long)


def _check_sources(model, src_ids_list):
    cfg = model.cfg
    max_len = getattr(model, "max_src_len", cfg.max_src_len)
    for i, s in enumerate(src_ids_list):
        if len(s) == 0:
            raise ValueError(f"source {i} is empty (it needs at least the EOS id)")
        if len(s) > max_len:
            raise ValueError(f"source {i} has {len(s)} ids, more than max_src_len = {max_len}")
        bad = [x for x in s if not (0 <= int(x) < cfg.src_vocab)]
        if bad:
            raise ValueError(f"source {i} has ids outside the source vocabulary: {bad[:5]}")


def _best(cand, k):
    """The k best candidates (and the next one, if any) in order: descending value,
    ties to the lower index. topk is fast but does not order ties, so any tie among
    the values it returns falls back to a full stable sort."""
    n = min(k + 1, cand.numel())
    vals, idx = torch.topk(cand, n)
    if n > 1 and bool((vals[1:] == vals[:-1]).any()):
        vals, idx = torch.sort(cand, descending=True, stable=True)
    return vals, idx


class Ensemble:
    """Several models that share vocabularies and special ids, searched as one: the
    step's log-probabilities are the mean of the models' log-probabilities, and its
    attention row the mean of their rows (DESIGN.md §2, "Search")."""

    def __init__(self, models):
        self.models = list(models)
        c0 = self.models[0].cfg
        for m in self.models[1:]:
            c = m.cfg
            same = (c.src_vocab, c.tgt_vocab, c.pad_id, c.unk_id, c.bos_id, c.eos_id) == \
                (c0.src_vocab, c0.tgt_vocab, c0.pad_id, c0.unk_id, c0.bos_id, c0.eos_id)
            if not same:
                raise ValueError("an ensemble needs models with the same vocabularies and special ids")
        self.cfg = c0
        self.max_src_len = min(m.cfg.max_src_len for m in self.models)

    @property
    def training(self):
        return any(m.training for m in self.models)

    def eval(self):
        for m in self.models:
            m.eval()
        return self

    def train(self, mode=True):
        for m in self.models:
            m.train(mode)
        return self

    def encode(self, src, src_len):
        return _Rows([m.encode(src, src_len) for m in self.models])

    def init_state(self, enc):
        return _Rows([m.init_state(e) for m, e in zip(self.models, enc.parts)])

    def log_probs_step(self, enc, y_prev, state, t):
        outs = [m.step(e, y_prev, s, t) for m, e, s in zip(self.models, enc.parts, state.parts)]
        logp = torch.stack([torch.log_softmax(o[0].float(), dim=-1) for o in outs]).mean(0)
        attn = torch.stack([o[1] for o in outs]).mean(0)
        return logp, attn, _Rows([o[2] for o in outs])


class _Rows:
    """Per-model encoder outputs or decoder states, selected together."""

    def __init__(self, parts):
        self.parts = parts

    def select(self, idx):
        return _Rows([p.select(idx) for p in self.parts])


def _log_probs_step(model, enc, y_prev, state, t):
    if isinstance(model, Ensemble):
        return model.log_probs_step(enc, y_prev, state, t)
    logits, attn, new_state = model.step(enc, y_prev, state, t)
    return torch.log_softmax(logits.float(), dim=-1), attn, new_state


def _check_prefix(cfg, prefix, lens, max_len_a, max_len_b):
    for x in prefix:
        if not (0 <= int(x) < cfg.tgt_vocab) or int(x) == cfg.eos_id:
            raise ValueError(f"prefix id {x} is outside the target vocabulary or is EOS")
    for S in lens:
        T = max_target_len(S, max_len_a, max_len_b)
        if len(prefix) >= T:
            raise ValueError(f"the prefix has {len(prefix)} ids; the maximum target length is {T} (EOS included)")


def repeat_bans(tokens, block_repeats, word_start):
    """The ids a hypothesis with these tokens may not take next (the module's
    docstring, "repetition blocking"); word_start[id] says whether piece id starts a word."""
    t, out = len(tokens), []
    for n in range(1, block_repeats + 1):
        if t < 2 * n - 1:
            break
        first = tokens[t - n] if n == 1 else tokens[t - n + 1]
        if tokens[t - n + 1:t] == tokens[t - 2 * n + 1:t - n] and word_start[first]:
            out.append(tokens[t - n])
    return out


def _search_batch(model, src_ids_list, K, alpha, beta, max_len_a, max_len_b, nbest, stats, prefix=(),
                  block_repeats=0, word_start=None):
    cfg = model.cfg
    B = len(src_ids_list)
    src, src_len = _pad(src_ids_list, cfg.pad_id)
    enc_all = model.encode(src, src_len)
    state = model.init_state(enc_all)
    lens = [len(s) for s in src_ids_list]
    T = [max_target_len(S, max_len_a, max_len_b) for S in lens]
    alive = [[_Partial([], torch.zeros((), dtype=torch.float32))] for _ in range(B)]
    finished = [[] for _ in range(B)]
    margins = [[] for _ in range(B)]
    rows_of = list(range(B))  # for each flat alive row: its sentence
    t = 0
    while rows_of:
        enc = enc_all.select(torch.tensor(rows_of, dtype=torch.long))
        y_prev = torch.tensor([h.tokens[-1] if h.tokens else cfg.bos_id
                               for b in range(B) for h in alive[b]], dtype=torch.long)
        logprobs, attn, new_state = _log_probs_step(model, enc, y_prev, state, t)
        V = logprobs.size(1)
        parents, next_rows = [], []
        r0 = 0
        for b in range(B):
            hyps = alive[b]
            if not hyps:
                continue
            H = len(hyps)
            base = torch.stack([h.logprob for h in hyps])
            cand = (base.unsqueeze(1) + logprobs[r0:r0 + H]).reshape(-1)
            if t < len(prefix):  # forced: the one hypothesis continues with the prefix's token
                k = 1
                idx = torch.tensor([prefix[t]], dtype=torch.long)
                vals = cand[idx]
            else:
                k = K - len(finished[b])
                if block_repeats > 0:
                    for h, hyp in enumerate(hyps):
                        for tok in repeat_bans(hyp.tokens, block_repeats, word_start):
                            cand[h * V + tok] = -math.inf
                vals, idx = _best(cand, k)
                if stats is not None and k < cand.numel():
                    margins[b].append(float(vals[k - 1]) - float(vals[k]))
            last_step = len(hyps[0].tokens) + 1 >= T[b]
            kept = []
            for v, i in zip(vals[:k], idx[:k].tolist()):
                h, tok = divmod(i, V)
                parent = hyps[h]
                p = _Partial(parent.tokens + [tok], v.clone(),
                             parent.rows + [attn[r0 + h, :lens[b]].clone()])
                if tok == cfg.eos_id or last_step:
                    A = torch.stack(p.rows)
                    eos = tok == cfg.eos_id
                    ids = p.tokens[:-1] if eos else p.tokens
                    finished[b].append(Hypothesis(ids, finished_score(p.logprob, len(p.tokens), A, alpha, beta),
                                                  float(p.logprob), A, eos))
                else:
                    kept.append(p)
                    parents.append(r0 + h)
                    next_rows.append(b)
            alive[b] = kept
            r0 += H
        rows_of = next_rows
        if rows_of:
            state = new_state.select(torch.tensor(parents, dtype=torch.long))
        t += 1
    out = []
    for b in range(B):
        order = sorted(range(len(finished[b])), key=lambda i: (-finished[b][i].score, i))
        best = [finished[b][i] for i in order]
        if stats is not None:
            margins[b] += [best[i].score - best[i + 1].score for i in range(min(nbest, len(best) - 1))]
            stats.append(min(margins[b]) if margins[b] else math.inf)
        out.append(best[:nbest])
    return out


def _toolkit_candidates(logprobs, base, K):
    """The candidates of one step under the toolkits' rules: each row's top K tokens
    (by log-probability, ties to the lower id), then the K best by summed log-probability,
    ties to the lower row, then the higher log-probability, then the lower id.
    → (kept [(cum float32 tensor, row, token)], margin)."""
    cands, spare = [], []
    for h in range(logprobs.size(0)):
        vals, idx = _best(logprobs[h], K)
        cum = base[h] + vals  # float32 sums
        for r, (c, i) in enumerate(zip(cum, idx.tolist())):
            (cands if r < K else spare).append((c, h, i))
    order = sorted(range(len(cands)), key=lambda i: -float(cands[i][0]))  # stable: (row, rank) order
    kept = [cands[i] for i in order[:K]]
    rest = [float(cands[i][0]) for i in order[K:]] + [float(c[0]) for c in spare]
    margin = math.inf
    if rest and kept and max(rest) > -math.inf:
        margin = float(kept[-1][0]) - max(rest)
    return kept, margin


def toolkit_search(model, src_ids, K, rules, alpha, max_len_a, max_len_b, stats=None):
    """One sentence searched with OpenNMT-py's (rules "opennmt") or JoeyNMT's ("joeynmt")
    beam rules (WEIGHTS_FORMAT.md, "Beam rules"); K = 1 is the toolkit's greedy search.
    → [Hypothesis] (the one result). If `stats` is a list, the smallest decision margin
    (kept vs dropped candidates at each step, best vs second result) is appended."""
    cfg = model.cfg
    src, src_len = _pad([src_ids], cfg.pad_id)
    S = len(src_ids)
    T = max_target_len(S, max_len_a, max_len_b)
    enc1 = model.encode(src, src_len)
    state = model.init_state(enc1)
    margins = []
    eos = cfg.eos_id
    zero = torch.zeros((), dtype=torch.float32)
    if rules == "opennmt":
        alive = [_Partial([], zero)]
    else:
        # K slots: at t = 0 one live, the others at -inf
        alive = [_Partial([], zero)] + [_Partial([], torch.tensor(-math.inf)) for _ in range(K - 1)]
        state = state.select(torch.zeros(K, dtype=torch.long))
        flags = [False] * K
        banned = [cfg.bos_id, cfg.pad_id]
    results = []  # (score, Hypothesis) in the order they were finished / stored
    for t in range(T):
        enc = enc1.select(torch.zeros(len(alive), dtype=torch.long))
        y_prev = torch.tensor([h.tokens[-1] if h.tokens else cfg.bos_id for h in alive], dtype=torch.long)
        logprobs, attn, new_state = _log_probs_step(model, enc, y_prev, state, t)
        if rules == "joeynmt":
            logprobs = logprobs.clone()
            logprobs[:, banned] = -math.inf
            if t == 0:
                logprobs[:, eos] = -math.inf  # min_output_length 1
        base = torch.stack([h.logprob for h in alive])
        kept, margin = _toolkit_candidates(logprobs, base, K)
        margins.append(margin)
        parts = []
        for cum, h, tok in kept:
            parent = alive[h]
            parts.append((h, _Partial(parent.tokens + [tok], cum, parent.rows + [attn[h, :S].clone()])))
        if rules == "opennmt":
            pen = float(t + 2) ** alpha
            nxt, parents, top_done = [], [], False
            for r, (h, p) in enumerate(parts):
                if p.tokens[-1] == eos or t == T - 1:
                    e = p.tokens[-1] == eos
                    results.append(Hypothesis(p.tokens[:-1] if e else p.tokens, float(p.logprob) / pen,
                                              float(p.logprob), torch.stack(p.rows), e))
                    top_done |= r == 0
                else:
                    nxt.append(p)
                    parents.append(h)
            if top_done or not nxt:
                break
        else:  # joeynmt
            pen = ((5.0 + t + 1) / 6.0) ** alpha if alpha > 0 else 1.0
            nxt = [p for _, p in parts]
            parents = [h for h, _ in parts]
            flags = [f or p.tokens[-1] == eos or float(p.logprob) == -math.inf for f, p in zip(flags, nxt)]
            if t == T - 1:
                flags = [True] * K
            for f, p in zip(flags, nxt):
                if not f:
                    continue
                n_eos = p.tokens.count(eos)
                if (n_eos == 1 and p.tokens[-1] == eos) or (n_eos == 0 and t == T - 1):
                    e = n_eos == 1
                    results.append(Hypothesis(p.tokens[:-1] if e else p.tokens, float(p.logprob) / pen,
                                              float(p.logprob), torch.stack(p.rows), e))
            if all(flags):
                break
        alive = nxt
        state = new_state.select(torch.tensor(parents, dtype=torch.long))
    if not results:  # nothing stored (JoeyNMT: every slot held a hypothesis with an inner EOS)
        results.append(Hypothesis([], -math.inf, -math.inf, torch.zeros(0, S), False))
    order = sorted(range(len(results)), key=lambda i: (-results[i].score, i))
    if len(order) > 1:
        margins.append(results[order[0]].score - results[order[1]].score)
    if stats is not None:
        stats.append(min(margins) if margins else math.inf)
    return [results[order[0]]]


def translate_ids(model, src_ids_list, beam=None, alpha=None, beta=None, max_len_a=None,
                  max_len_b=None, nbest=None, batch_size=64, stats=None, prefix=None, block_repeats=None,
                  word_start=None, beam_rules=None):
    """Translates source id lists (pieces + EOS each) with the reference search.

    `model` is one model or a list of models (an ensemble, see Ensemble). Options default to the model config's `decoding`. Sentences are batched by
    length (batch_size per batch) and returned in input order: for each, a list
    of up to nbest Hypothesis, best first. If `stats` is a list, the smallest
    decision margin of each sentence is appended to it (the gap between the last
    kept and the first dropped candidate at every step, and between consecutive
    n-best scores), which says how close the search came to a different result.
    `prefix` (target ids, no BOS/EOS) is forced at the start of every hypothesis.
    `block_repeats` (default: decoding.block_repeats, else 0) turns repetition
    blocking on; it needs `word_start`, a sequence of bools over the target ids
    (word_start_ids gives it from a SentencePiece model).
    `beam_rules` (default: decoding.beam_rules, else "softalign"): "opennmt" or "joeynmt"
    search each sentence with that toolkit's rules (toolkit_search); they refuse n-best,
    beta, prefixes and repetition blocking.
    """
    if isinstance(model, (list, tuple)):
        model = Ensemble(model) if len(model) > 1 else model[0]
    dec = model.cfg.decoding
    beam = dec["beam"] if beam is None else beam
    alpha = dec["alpha"] if alpha is None else alpha
    beta = dec["beta"] if beta is None else beta
    max_len_a = dec["max_len_a"] if max_len_a is None else max_len_a
    max_len_b = dec["max_len_b"] if max_len_b is None else max_len_b
    nbest = dec["nbest"] if nbest is None else nbest
    block_repeats = dec.get("block_repeats", 0) if block_repeats is None else block_repeats
    if not (isinstance(block_repeats, int) and 0 <= block_repeats <= 8):
        raise ValueError(f"block_repeats must be an integer in [0, 8], got {block_repeats!r}")
    if block_repeats > 0 and word_start is None:
        raise ValueError("block_repeats needs word_start (word_start_ids)")
    if not (isinstance(beam, int) and beam >= 1):
        raise ValueError(f"beam must be an integer >= 1, got {beam!r}")
    if not (isinstance(nbest, int) and 1 <= nbest <= beam):
        raise ValueError(f"nbest must be an integer in [1, beam], got {nbest!r}")
    if beam > model.cfg.tgt_vocab:
        raise ValueError(f"beam {beam} is larger than the target vocabulary")
    beam_rules = dec.get("beam_rules", "softalign") if beam_rules is None else beam_rules
    if beam_rules not in ("softalign", "opennmt", "joeynmt"):
        raise ValueError(f"beam_rules must be softalign, opennmt or joeynmt, got {beam_rules!r}")
    if beam_rules != "softalign":
        refused = [name for name, on in (("n-best", nbest > 1), ("a coverage penalty (beta)", beta != 0),
                                         ("a target prefix", bool(prefix)),
                                         ("repetition blocking", block_repeats > 0)) if on]
        if refused:
            raise ValueError(f"beam_rules {beam_rules} has no {', '.join(refused)} (softalign rules only)")
    src_ids_list = [list(map(int, s)) for s in src_ids_list]
    _check_sources(model, src_ids_list)
    prefix = [int(x) for x in (prefix or [])]
    _check_prefix(model.cfg, prefix, [len(s) for s in src_ids_list], max_len_a, max_len_b)
    order = sorted(range(len(src_ids_list)), key=lambda i: len(src_ids_list[i]))
    results = [None] * len(src_ids_list)
    margin_of = [None] * len(src_ids_list)
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            if beam_rules != "softalign":
                for i in range(len(src_ids_list)):
                    st = [] if stats is not None else None
                    results[i] = toolkit_search(model, src_ids_list[i], beam, beam_rules, alpha,
                                                max_len_a, max_len_b, st)
                    if st is not None:
                        margin_of[i] = st[0]
                order = []
            for k in range(0, len(order), batch_size):
                chunk = order[k:k + batch_size]
                st = [] if stats is not None else None
                res = _search_batch(model, [src_ids_list[i] for i in chunk], beam, alpha, beta,
                                    max_len_a, max_len_b, nbest, st, prefix, block_repeats, word_start)
                for j, i in enumerate(chunk):
                    results[i] = res[j]
                    if st is not None:
                        margin_of[i] = st[j]
    finally:
        model.train(was_training)
    if stats is not None:
        stats.extend(margin_of)
    return results


def word_start_ids(sp, vocab_size):
    """For each target id below vocab_size: whether its piece in SentencePiece model `sp`
    starts a word (begins with U+2581; control pieces do not)."""
    n = sp.get_piece_size()
    return [i < n and not sp.is_control(i) and sp.id_to_piece(i).startswith("\u2581") for i in range(vocab_size)]


def greedy(model, src_ids_list, **kw):
    """Beam 1: the argmax at every step (ties to the lower id)."""
    return translate_ids(model, src_ids_list, beam=1, nbest=1, **kw)

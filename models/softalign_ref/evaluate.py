"""Evaluation: BLEU and chrF2 through sacrebleu (its defaults), BLEU per source-length bucket.

`score(hyps, refs)` and `bleu_by_length(srcs, hyps, refs)` take plain strings, so
any translator's output can be scored the same way; `translate_lines` runs the
reference translator (softalign_ref.search) of a model directory.
"""
import math
import re
import os

from sacrebleu.metrics import BLEU, CHRF

# Source-length buckets in whitespace words: [lo, hi), the last one open.
DEFAULT_BUCKETS = (0, 10, 20, 30, 40, 50)


def _check(hyps, refs):
    hyps, refs = list(hyps), list(refs)
    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} references")
    if not hyps:
        raise ValueError("nothing to score: no sentences")
    return hyps, refs


def score(hyps, refs):
    """Corpus BLEU and chrF2 (sacrebleu defaults, one reference per sentence).

    Returns {"bleu", "chrf", "bleu_signature", "chrf_signature", "bleu_str", "n"}.
    """
    hyps, refs = _check(hyps, refs)
    bleu, chrf = BLEU(), CHRF()
    b = bleu.corpus_score(hyps, [refs])
    c = chrf.corpus_score(hyps, [refs])
    return {
        "bleu": b.score, "chrf": c.score, "n": len(hyps),
        "bleu_str": str(b),
        "bleu_signature": str(bleu.get_signature()),
        "chrf_signature": str(chrf.get_signature()),
    }


def _words(line):
    """The words of a line that hold a letter, lowercased, without their edge punctuation."""
    out = []
    for token in line.split():
        w = re.sub(r"^\W+|\W+$", "", token).lower()
        if re.search(r"[^\W\d_]", w):
            out.append(w)
    return out


def repeated_word_rate(lines):
    """(count, share) of lines where a word (with a letter) is followed by itself,
    edge punctuation and case aside ("génériques génériques")."""
    n = sum(any(a == b for a, b in zip(w, w[1:])) for w in map(_words, lines))
    return n, n / max(len(lines), 1)


def numbers_kept(srcs, hyps):
    """(kept, total) over the source's numbers of two digits or more: kept when its digits
    appear, in order and together, in the output with its spaces and separators
    (. , narrow and no-break spaces) removed, so that a formatted 13 908 counts."""
    kept = total = 0
    for s, h in zip(srcs, hyps):
        flat = re.sub(r"[\s\u202f\u00a0.,]", "", h)
        for x in re.findall(r"\d+(?:[.,]\d+)*", s):
            digits = re.sub(r"\D", "", x)
            if len(digits) >= 2:
                total += 1
                kept += digits in flat
    return kept, total


def bucket_label(lo, hi):
    return f"{lo}-{hi}" if hi is not None else f"{lo}+"


def bleu_by_length(srcs, hyps, refs, buckets=DEFAULT_BUCKETS):
    """BLEU per source-length bucket (source words counted by whitespace split).

    Returns a list of {"bucket", "lo", "hi", "n", "bleu"}, one per bucket, in order;
    an empty bucket has n = 0 and bleu = NaN.
    """
    hyps, refs = _check(hyps, refs)
    srcs = list(srcs)
    if len(srcs) != len(hyps):
        raise ValueError(f"{len(srcs)} sources but {len(hyps)} hypotheses")
    edges = list(buckets) + [None]
    out = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = [k for k, s in enumerate(srcs)
               if len(s.split()) >= lo and (hi is None or len(s.split()) < hi)]
        if sel:
            b = BLEU().corpus_score([hyps[k] for k in sel], [[refs[k] for k in sel]]).score
        else:
            b = math.nan
        out.append({"bucket": bucket_label(lo, hi), "lo": lo, "hi": hi, "n": len(sel), "bleu": b})
    return out


def hyp_ids(h):
    """The output ids of a hypothesis from search.translate_ids (object or tuple)."""
    return list(h.ids) if hasattr(h, "ids") else list(h[0])


def translate_ids_batched(model, src_ids, beam=1, alpha=0.0, beta=0.0, max_len_a=2.0,
                          max_len_b=10.0, batch_size=64, word_start=None):
    """Best hypothesis ids for each source id list, batched by length, input order kept.
    Repetition blocking as the config's decoding.block_repeats says; it needs `word_start`
    (search.word_start_ids) when that is on."""
    import torch
    from . import search
    order = sorted(range(len(src_ids)), key=lambda i: len(src_ids[i]))
    out = [None] * len(src_ids)
    model.eval()
    with torch.inference_mode():
        for k in range(0, len(order), batch_size):
            chunk = order[k:k + batch_size]
            res = search.translate_ids(model, [src_ids[i] for i in chunk], beam=beam, alpha=alpha,
                                       beta=beta, max_len_a=max_len_a, max_len_b=max_len_b, nbest=1,
                                       word_start=word_start)
            for i, hyps in zip(chunk, res):
                out[i] = hyp_ids(hyps[0])
    return out


def translate_lines(model, tok, lines, max_src_len, **search_opts):
    """Translates text lines with the reference translator; over-long sources are cut to max_src_len.
    The target tokenizer gives the word starts that repetition blocking needs."""
    from . import search
    from .tokenizer import EOS_ID
    src_ids = []
    for line in lines:
        ids = tok.encode_src(line)
        if len(ids) > max_src_len:
            ids = ids[:max_src_len - 1] + [EOS_ID]
        src_ids.append(ids)
    word_start = search.word_start_ids(tok.tgt, model.cfg.tgt_vocab)
    return [tok.decode_tgt(ids) for ids in translate_ids_batched(model, src_ids, word_start=word_start, **search_opts)]


def format_report(result, buckets=None):
    lines = [f"BLEU = {result['bleu']:.2f}  chrF2 = {result['chrf']:.2f}  ({result['n']} sentences)",
             f"  {result['bleu_str']}",
             f"  BLEU signature: {result['bleu_signature']}",
             f"  chrF signature: {result['chrf_signature']}"]
    if buckets:
        lines.append("BLEU by source length (words):")
        for b in buckets:
            v = "   -  " if b["n"] == 0 else f"{b['bleu']:6.2f}"
            lines.append(f"  {b['bucket']:>6}  n={b['n']:5d}  BLEU={v}")
    return "\n".join(lines)


def read_lines(path):
    if not path or not os.path.isfile(path):
        raise FileNotFoundError(f"file not found: {path}")
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def translate_model_dir(model_dir, lines, beam=None, alpha=None, beta=None, batch_size=64):
    """Loads MODEL_DIR (export.load + its tokenizers) and translates lines.

    Search options default to the config's `decoding`. Returns (hypotheses, options used).
    """
    from . import export
    from .tokenizer import Tokenizers
    if os.path.isfile(model_dir):  # the weights file itself
        model_dir = os.path.dirname(os.path.abspath(model_dir))
    model, cfg = export.load(os.path.join(model_dir, "model.safetensors"))
    tok = Tokenizers.load(model_dir)
    dec = dict(getattr(cfg, "decoding", None) or {})
    opts = {"beam": beam if beam is not None else int(dec.get("beam", 1)),
            "alpha": alpha if alpha is not None else float(dec.get("alpha", 0.0)),
            "beta": beta if beta is not None else float(dec.get("beta", 0.0)),
            "max_len_a": float(dec.get("max_len_a", 2.0)),
            "max_len_b": float(dec.get("max_len_b", 10.0))}
    hyps = translate_lines(model, tok, lines, cfg.max_src_len, batch_size=batch_size, **opts)
    return hyps, opts

#!/usr/bin/env python3
"""Regenerates the golden tiny models and their expected outputs (tests/golden/<name>/).

    python3 tests/golden/make_golden.py [--corpus ../shared/data/ddtp/en-fr]
    python3 tests/golden/make_golden.py --ensembles   # ensembles.json only

Each variant gets a tiny model with random weights (fixed seed), tiny
SentencePiece models trained on a few hundred lines of the en-fr training
split, a few source sentences and the reference implementation's outputs:
teacher-forced logits and attention, greedy and beam-4 n-best search results.
The layout of golden.json is documented in tests/golden/README.md.

The seed of a variant is the first one (from its base seed up) for which every
search decision is separated by more than MIN_MARGIN, so that a float32
implementation in another language reproduces the ids exactly.
"""
import argparse
import io
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "models"))

import sentencepiece as spm  # noqa: E402
import torch  # noqa: E402

from softalign_ref import search  # noqa: E402
from softalign_ref.config import ModelConfig  # noqa: E402
from softalign_ref.export import load, save  # noqa: E402
from softalign_ref.model import build_model  # noqa: E402

MIN_MARGIN = 1e-3
SPM_LINES = 400        # training lines for the tiny SentencePiece models
SPM_STRIDE = 150       # every 150th line of the training split (it is sorted)
VOCAB = 100            # separate vocabularies
SHARED_VOCAB = 128     # shared vocabulary
MAX_TF_PIECES = 32     # teacher-forced references are cut to this many pieces
# Added to the generator's EOS bias, the first that gives a mix of hypotheses that end
# with EOS and hypotheses cut at the maximum length (see good_mix).
EOS_BIASES = tuple(sorted((k / 2 for k in range(-8, 9)), key=abs))

# Source sentences: (lo, hi) = wanted number of source pieces (without EOS).
SENTENCE_LENGTHS = [(1, 1), (6, 10), (13, 16), (30, 34)]

SIZES = dict(emb_size=16, enc_hidden=12, dec_hidden=24, max_src_len=64, src_lang="en", tgt_lang="fr")
LUONG = dict(variant="luong", maxout_size=0, att_hidden=0, input_feeding=True)

# name → config overrides. dot needs dec_hidden = 2 * enc_hidden (24 = 2 * 12).
VARIANTS = {
    "encdec": dict(variant="encdec", att_hidden=0, maxout_size=8),
    "bahdanau": dict(variant="bahdanau", att_hidden=16, maxout_size=8),
    "luong_dot": dict(LUONG, score="dot"),
    "luong_general": dict(LUONG, score="general"),
    "luong_concat": dict(LUONG, score="concat", att_hidden=16),
    "luong_location": dict(LUONG, score="location"),
    "luong_local_m": dict(LUONG, score="general", scope="local-m", window_d=3),
    "luong_local_m_nofeed": dict(LUONG, score="general", scope="local-m", window_d=3, input_feeding=False),
    "luong_local_p": dict(LUONG, score="general", scope="local-p", window_d=3, att_hidden=16),
    "luong_local_p_nofeed": dict(LUONG, score="general", scope="local-p", window_d=3, att_hidden=16,
                                 input_feeding=False),
    "luong_2x2": dict(LUONG, score="general", enc_layers=2, dec_layers=2),
    "bahdanau_shared": dict(variant="bahdanau", att_hidden=16, maxout_size=8, shared_vocab=True, dec_layers=2),
    # format version 2 (WEIGHTS_FORMAT.md)
    # Luong 2015 as built: LSTM, one-way reversed encoder, layer k starts from encoder layer k (n = d)
    "luong_lstm_reversed": dict(LUONG, score="general", scope="local-p", window_d=3, att_hidden=16, cell="lstm",
                                enc_directions=1, reverse_source=True, enc_hidden=24, enc_layers=2, dec_layers=2,
                                decoder_init="final"),
    # OpenNMT-py's brnn GRU with bridge and mlp attention
    "onmt_gru_bridge": dict(LUONG, score="concat", att_hidden=16, source_eos=False, decoder_init="relu-final",
                            enc_layers=2, dec_layers=2, query_bias=True, combine_bias=True, combine_tanh=False,
                            beam_rules="opennmt"),
    # JoeyNMT's bidirectional LSTM with bridge and "bahdanau" (concat) attention
    "joey_lstm": dict(LUONG, score="concat", att_hidden=16, cell="lstm", decoder_init="tanh-final", dec_layers=2,
                      combine_bias=True, beam_rules="joeynmt"),
    "bahdanau_lstm_oneway": dict(variant="bahdanau", att_hidden=16, maxout_size=8, cell="lstm", enc_directions=1,
                                 decoder_init="zero"),
}
# Base seeds of the version-2 variants (the others' come from their place among FIRST_VARIANTS).
FIRST_VARIANTS = ("encdec", "bahdanau", "luong_dot", "luong_general", "luong_concat", "luong_location",
                  "luong_local_m", "luong_local_m_nofeed", "luong_local_p", "luong_local_p_nofeed", "luong_2x2",
                  "bahdanau_shared")
V2_BASE_SEEDS = {"luong_lstm_reversed": 3000, "onmt_gru_bridge": 3100, "joey_lstm": 3200,
                 "bahdanau_lstm_oneway": 3300}

# The searches recorded for every variant.
SEARCHES = [
    dict(name="greedy", beam=1, alpha=0.0, beta=0.0, max_len_a=1.0, max_len_b=3.0, nbest=1),
    dict(name="beam4", beam=4, alpha=0.6, beta=0.2, max_len_a=1.0, max_len_b=3.0, nbest=4),
    dict(name="beam4_plain", beam=4, alpha=0.0, beta=0.0, max_len_a=1.0, max_len_b=3.0, nbest=4),
]
# The searches of a variant whose decoding.beam_rules is a toolkit's (opennmt, joeynmt): the
# rules' greedy and beam, without what they refuse (n-best, coverage penalty).
TOOLKIT_SEARCHES = [
    dict(name="greedy", beam=1, alpha=0.0, beta=0.0, max_len_a=1.0, max_len_b=3.0, nbest=1),
    dict(name="beam4", beam=4, alpha=0.6, beta=0.0, max_len_a=1.0, max_len_b=3.0, nbest=1),
    dict(name="beam5", beam=5, alpha=1.0, beta=0.0, max_len_a=1.0, max_len_b=3.0, nbest=1),
]
# Searches left out for the long sentence (to keep the files small).
SKIP_FOR_LONG = ("beam4_plain", "beam5")

# Ensembles of committed variants that share both tokenizers (ensembles.json),
# run on their first member's sentences but the long one, with no prefix and
# with a target prefix (the reference translation's first PREFIX_PIECES
# pieces). A one-member "ensemble" is the single model: its prefix runs only.
ENSEMBLES = [["bahdanau"], ["bahdanau", "luong_general"], ["luong_2x2", "luong_location", "encdec"]]
PREFIX_PIECES = 2
PREFIX_SEARCHES = ("greedy", "beam4")


def base_seed(name):
    if name in V2_BASE_SEEDS:
        return V2_BASE_SEEDS[name]
    return 1000 + 100 * sorted(FIRST_VARIANTS).index(name)


def make_config(name):
    kw = dict(SIZES)
    kw.update(VARIANTS[name])
    shared = kw.get("shared_vocab", False)
    v = SHARED_VOCAB if shared else VOCAB
    # A toolkit's beam rules are the variant's searches' (searches_for), not its
    # model default: the runtime's tests run every golden model with softalign's
    # features too (n-best, prefixes, repetition blocking), which those rules refuse.
    rules = kw.pop("beam_rules", None)
    decoding = dict(beam=4, alpha=0.6, beta=0.2, max_len_a=1.0, max_len_b=3.0, nbest=4)
    if rules:
        decoding.update(beta=0.0, nbest=1)
    kw.update(src_vocab=v, tgt_vocab=v, name=f"golden-{name}", decoding=decoding)
    return ModelConfig(**kw).validate()


def searches_for(cfg):
    """The searches recorded for a model: SEARCHES, or TOOLKIT_SEARCHES with its variant's beam rules."""
    rules = VARIANTS[cfg.name[len("golden-"):]].get("beam_rules")
    if rules is None:
        return SEARCHES
    return [dict(s, beam_rules=rules) for s in TOOLKIT_SEARCHES]


def init_weights(model, seed, eos_bias):
    """Deterministic random weights, scaled so that logits are well separated."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            if name.endswith("emb.weight"):
                p.copy_(torch.randn(p.shape, generator=g))
            elif p.dim() == 1:
                p.copy_((torch.rand(p.shape, generator=g) * 2 - 1) * 0.2)
            else:
                scale = 1.5
                if name.startswith("generator"):
                    # luong's h~ is bounded by tanh: a larger scale separates its logits as well
                    scale = 6.0 if model.cfg.variant == "luong" else 3.0
                scale /= p.shape[1] ** 0.5
                p.copy_((torch.rand(p.shape, generator=g) * 2 - 1) * scale)
        model.generator.bias[model.cfg.eos_id] += eos_bias
    return model


# ---- SentencePiece -----------------------------------------------------------

def train_spm(lines, path, vocab):
    """Trains from memory, so the model records no file names: the bytes are reproducible."""
    model = io.BytesIO()
    spm.set_random_generator_seed(7)
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=model, vocab_size=vocab, model_type="unigram",
        character_coverage=0.98, normalization_rule_name="identity",
        pad_id=0, unk_id=1, bos_id=2, eos_id=3,
        input_sentence_size=0, shuffle_input_sentence=False, num_threads=1,
        hard_vocab_limit=True, minloglevel=2)
    with open(path, "wb") as f:
        f.write(model.getvalue())


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def train_tokenizers(corpus, out_dir):
    """Trains (separate and shared) tiny tokenizers into out_dir; returns their paths."""
    en, fr = read_lines(os.path.join(corpus, "train.en")), read_lines(os.path.join(corpus, "train.fr"))
    idx = list(range(0, len(en), SPM_STRIDE))[:SPM_LINES]
    src, tgt = [en[i] for i in idx], [fr[i] for i in idx]
    paths = {k: os.path.join(out_dir, f"{k}.spm.model") for k in ("src", "tgt", "shared")}
    train_spm(src, paths["src"], VOCAB)
    train_spm(tgt, paths["tgt"], VOCAB)
    train_spm(src + tgt, paths["shared"], SHARED_VOCAB)
    return paths, en, fr


def pick_sentences(sp_src, en, fr):
    """Source/reference pairs with the wanted source lengths, found in a fixed scan order.

    The one-piece source is a word of a training sentence that is a single piece
    (its reference: the first three words of that sentence's translation).
    """
    picked, used = [], set()
    for lo, hi in SENTENCE_LENGTHS:
        found = None
        for i in range(7, len(en), 13):
            if i in used or len(en[i].split()) > 60:
                continue
            if hi == 1:
                for w in en[i].split():
                    if w.isalpha() and len(w) >= 3 and len(sp_src.encode(w)) == 1:
                        found = (i, w, " ".join(fr[i].split()[:3]))
                        break
            else:
                ids = sp_src.encode(en[i])
                if lo <= len(ids) <= hi and sp_src.unk_id() not in ids and len(en[i].split()) >= 2:
                    found = (i, en[i], fr[i])
            if found:
                break
        if not found:
            raise RuntimeError(f"no source sentence of {lo}..{hi} pieces found")
        used.add(found[0])
        picked.append(found[1:])
    return picked


# ---- expected outputs ----------------------------------------------------------

def r9(x):
    """A float rounded to 9 significant digits (what golden.json stores)."""
    return float(f"{float(x):.9g}")


def rows9(t):
    return [[r9(v) for v in row] for row in t.tolist()]


def teacher_forced(model, cfg, src_ids, tgt_ids):
    tgt_in = [cfg.bos_id] + tgt_ids
    with torch.inference_mode():
        logits, attn = model(torch.tensor([src_ids]), torch.tensor([len(src_ids)]), torch.tensor([tgt_in]))
    return {"tgt_in": tgt_in, "tgt_out": tgt_ids + [cfg.eos_id],
            "logits": rows9(logits[0]), "attn": rows9(attn[0])}


def run_searches(model, src_ids, long, names=None, prefix=None, searches=None):
    """The searches of SEARCHES (or `searches`; or those named) on one sentence (alone).
    → (records, min margin)."""
    out, worst = [], float("inf")
    for s in (SEARCHES if searches is None else searches):
        if (long and s["name"] in SKIP_FOR_LONG) or (names is not None and s["name"] not in names):
            continue
        opts = {k: v for k, v in s.items() if k != "name"}
        stats = []
        hyps = search.translate_ids(model, [src_ids], stats=stats, prefix=prefix, **opts)[0]
        worst = min(worst, stats[0])
        out.append({"name": s["name"], "margin": r9(stats[0]), "hyps": [
            {"ids": h.ids, "score": r9(h.score), "logprob": r9(h.logprob), "eos": h.eos, "attn": rows9(h.attn)}
            for h in hyps]})
    return out, worst


def compute_golden(model, cfg, sp_src, sp_tgt, sentences):
    """golden.json's content for a model and its (source, reference) sentences."""
    sents, worst = [], float("inf")
    for k, (src_text, tgt_text) in enumerate(sentences):
        src_ids = sp_src.encode(src_text) + [cfg.eos_id]
        tgt_ids = sp_tgt.encode(tgt_text)[:MAX_TF_PIECES]
        rec = {"src_text": src_text, "tgt_text": tgt_text, "src_ids": src_ids}
        rec["teacher_forced"] = teacher_forced(model, cfg, src_ids, tgt_ids)
        rec["search"], m = run_searches(model, src_ids, k == len(sentences) - 1, searches=searches_for(cfg))
        worst = min(worst, m)
        sents.append(rec)
    return {"format": "softalign-golden", "format_version": 1, "config": cfg.to_dict(),
            "searches": searches_for(cfg), "min_margin": r9(worst), "sentences": sents}, worst


def model_for(name, seed, eos_bias):
    cfg = make_config(name)
    return init_weights(build_model(cfg), seed, eos_bias).eval(), cfg


def good_mix(golden):
    """Hypotheses that end with EOS and hypotheses cut at the maximum length, few empty ones."""
    hyps = [h for s in golden["sentences"] for r in s["search"] for h in r["hyps"]]
    n_eos = sum(h["eos"] for h in hyps)
    n_empty = sum(len(h["ids"]) == 0 for h in hyps)
    return 0.25 * len(hyps) <= n_eos <= 0.85 * len(hyps) and n_empty <= 0.1 * len(hyps)


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")


def make_variant(name, out_root, spm_paths, sentences_of):
    d = os.path.join(out_root, name)
    os.makedirs(d, exist_ok=True)
    cfg = make_config(name)
    if cfg.shared_vocab:
        shutil.copyfile(spm_paths["shared"], os.path.join(d, "spm.model"))
        sp_src = sp_tgt = spm.SentencePieceProcessor(model_file=spm_paths["shared"])
    else:
        shutil.copyfile(spm_paths["src"], os.path.join(d, "src.spm.model"))
        shutil.copyfile(spm_paths["tgt"], os.path.join(d, "tgt.spm.model"))
        sp_src = spm.SentencePieceProcessor(model_file=spm_paths["src"])
        sp_tgt = spm.SentencePieceProcessor(model_file=spm_paths["tgt"])
    sentences = sentences_of(sp_src)
    def attempts():
        for seed in range(base_seed(name), base_seed(name) + 20):
            for eos_bias in EOS_BIASES:
                yield seed, eos_bias

    for seed, eos_bias in attempts():
        model, cfg = model_for(name, seed, eos_bias)
        golden, worst = compute_golden(model, cfg, sp_src, sp_tgt, sentences)
        if worst > MIN_MARGIN and good_mix(golden):
            break
    else:
        raise RuntimeError(f"{name}: no seed gives decision margins > {MIN_MARGIN} and a good mix of lengths")
    golden["name"], golden["seed"], golden["eos_bias"] = name, seed, eos_bias
    save(model, cfg, os.path.join(d, "model.safetensors"), {"golden_seed": seed, "golden_eos_bias": eos_bias})
    # What is written must reproduce itself through export → load.
    reloaded, _ = load(os.path.join(d, "model.safetensors"))
    again, _ = compute_golden(reloaded, cfg, sp_src, sp_tgt, sentences)
    again["name"], again["seed"], again["eos_bias"] = name, seed, eos_bias
    if again != golden:
        raise RuntimeError(f"{name}: the reloaded model does not reproduce its outputs")
    write_json(os.path.join(d, "golden.json"), golden)
    n_eos = sum(h["eos"] for s in golden["sentences"] for r in s["search"] for h in r["hyps"])
    n_all = sum(len(r["hyps"]) for s in golden["sentences"] for r in s["search"])
    print(f"{name:22s} seed {seed} eos bias {eos_bias:+.1f}  min margin {worst:.4f}  hyps ending in EOS {n_eos}/{n_all}")


def compute_ensembles(golden_dir):
    """ensembles.json's content: the reference search of each ENSEMBLES entry
    (translate_ids with the list of its members) on its first member's sentences."""
    out = []
    for names in ENSEMBLES:
        models = [load(os.path.join(golden_dir, n, "model.safetensors"))[0] for n in names]
        first = json.load(open(os.path.join(golden_dir, names[0], "golden.json"), encoding="utf-8"))
        sents, worst = [], float("inf")
        for sent in first["sentences"][:-1]:
            src_ids = sent["src_ids"]
            prefix = sent["teacher_forced"]["tgt_out"][:PREFIX_PIECES]
            runs = [([], None)] if len(names) > 1 else []
            runs.append((prefix, PREFIX_SEARCHES))
            for pre, which in runs:
                rec, m = run_searches(models, src_ids, False, which, pre)
                worst = min(worst, m)
                sents.append({"src_ids": src_ids, "prefix": pre, "search": rec})
        out.append({"members": names, "min_margin": r9(worst), "sentences": sents})
        print(f"ensemble {'+'.join(names):40s} min margin {worst:.4f}")
    return {"format": "softalign-golden-ensembles", "format_version": 1, "searches": SEARCHES, "ensembles": out}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=os.path.join(ROOT, "..", "shared", "data", "ddtp", "en-fr"),
                    help="folder with train.en and train.fr (default: ../shared/data/ddtp/en-fr)")
    ap.add_argument("--out", default=HERE, help="output folder (default: tests/golden)")
    ap.add_argument("--only", nargs="*", help="variants to regenerate (default: all)")
    ap.add_argument("--ensembles", action="store_true",
                    help="only regenerate ensembles.json from the committed variants (no corpus needed)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    if args.ensembles:
        write_json(os.path.join(args.out, "ensembles.json"), compute_ensembles(args.out))
        return
    with tempfile.TemporaryDirectory() as tmp:
        spm_paths, en, fr = train_tokenizers(args.corpus, tmp)
        cache = {}

        def sentences_of(sp_src):
            key = sp_src.serialized_model_proto()
            if key not in cache:
                cache[key] = pick_sentences(sp_src, en, fr)
            return cache[key]

        for name in (args.only or VARIANTS):
            if name not in VARIANTS:
                raise SystemExit(f"unknown variant {name!r}; known: {', '.join(VARIANTS)}")
            make_variant(name, args.out, spm_paths, sentences_of)
    if not args.only:  # the ensembles need all their members
        write_json(os.path.join(args.out, "ensembles.json"), compute_ensembles(args.out))


if __name__ == "__main__":
    main()

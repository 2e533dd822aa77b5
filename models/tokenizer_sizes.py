#!/usr/bin/env python3
"""Choose a joint SentencePiece vocabulary size: train one per size on a corpus's
training split and measure how each cuts held-out text.

  python3 models/tokenizer_sizes.py --corpus runs/mix/en-de --tgt de --sizes 12000,16000,24000 \
      --eval everyday=runs/ding-corpus/en-de/dev --eval ddtp=../shared/data/ddtp/en-de/dev [--sample 600000]

For each size and each --eval NAME=PREFIX (PREFIX.en and PREFIX.TGT), prints pieces per
word (whitespace-separated) on both sides and the share of words that are one piece: fewer
pieces a word means shorter sequences (faster steps) and words the model sees whole
("rabbit" as one piece, not "▁ra b bit"). The tokenizers are trained as the trainer trains
them (softalign_ref.tokenizer.train_spm: unigram, character coverage 1.0, the same seed) on
`--sample` pairs drawn with a fixed seed (all pairs when the split is smaller), and kept in
--keep DIR/SIZE/spm.model when given.
"""
import argparse
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from softalign_ref import data as D  # noqa: E402
from softalign_ref.tokenizer import train_spm  # noqa: E402


def cut(sp, lines):
    words = pieces = whole = 0
    for line in lines:
        for w in line.split():
            n = len(sp.encode(w, out_type=str))
            words += 1
            pieces += n
            whole += n == 1
    return pieces / max(words, 1), whole / max(words, 1)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", required=True)
    p.add_argument("--src", default="en")
    p.add_argument("--tgt", required=True)
    p.add_argument("--sizes", default="12000,16000,24000")
    p.add_argument("--eval", action="append", default=[], metavar="NAME=PREFIX")
    p.add_argument("--sample", type=int, default=600000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--keep", metavar="DIR")
    p.add_argument("--baseline", metavar="SPM_MODEL", help="also measure this tokenizer (e.g. the shipped models/en-de/spm.model)")
    a = p.parse_args(argv)
    import sentencepiece as spm
    src, tgt = D.read_parallel(a.corpus, "train", a.src, a.tgt)
    idx = list(range(len(src)))
    random.Random(a.seed).shuffle(idx)
    idx = sorted(idx[: a.sample])
    src, tgt = [src[k] for k in idx], [tgt[k] for k in idx]
    evals = []
    for e in a.eval:
        name, prefix = e.split("=", 1)
        evals.append((name, D.read_lines(f"{prefix}.{a.src}"), D.read_lines(f"{prefix}.{a.tgt}")))
    print(f"{len(src)} training pairs sampled from {a.corpus}\n")
    print("| vocabulary | set | pieces/word " + a.src + " | pieces/word " + a.tgt + " | one-piece words " + a.src +
          " | one-piece words " + a.tgt + " |")
    print("|---:|---|---:|---:|---:|---:|")
    runs = [("baseline", a.baseline)] if a.baseline else []
    runs += [(int(s), None) for s in a.sizes.split(",")]
    for size, path in runs:
        if path is None:
            d = os.path.join(a.keep, str(size)) if a.keep else tempfile.mkdtemp()
            path = os.path.join(d, "spm.model")
            if not os.path.isfile(path):
                train_spm([src, tgt], path, size, "unigram", 1.0, a.seed)
        sp = spm.SentencePieceProcessor(model_file=path)
        label = size if isinstance(size, int) else f"{sp.get_piece_size()} (baseline)"
        for name, es, et in evals:
            ps, ws = cut(sp, es)
            pt, wt = cut(sp, et)
            print(f"| {label} | {name} | {ps:.2f} | {pt:.2f} | {100 * ws:.1f} % | {100 * wt:.1f} % |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

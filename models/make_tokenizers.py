#!/usr/bin/env python3
"""Train the SentencePiece tokenizers of a model directory on a corpus's training split.

  python3 models/make_tokenizers.py --corpus CORPUS/en-fr --src en --tgt fr --out DIR \
      [--src-vocab 8000] [--tgt-vocab 8000] [--shared] [--train-limit N]

Writes DIR/src.spm.model and DIR/tgt.spm.model (or DIR/spm.model with --shared),
ids pad 0, unk 1, bos 2, eos 3. The trainer makes the same files itself on its
first run; this command lets several models share one pair of tokenizers
(train.py --tokenizers DIR).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from softalign_ref import data as D  # noqa: E402
from softalign_ref.tokenizer import Tokenizers  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", required=True)
    p.add_argument("--src", required=True)
    p.add_argument("--tgt", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--src-vocab", type=int, default=8000)
    p.add_argument("--tgt-vocab", type=int, default=8000)
    p.add_argument("--shared", action="store_true")
    p.add_argument("--model-type", default="unigram", choices=["unigram", "bpe", "char", "word"])
    p.add_argument("--train-limit", type=int)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    try:
        src, tgt = D.read_parallel(a.corpus, "train", a.src, a.tgt, a.train_limit)
        tok = Tokenizers.train(a.out, src, tgt, a.src_vocab, a.tgt_vocab, a.shared, a.model_type, 1.0, a.seed)
    except (FileNotFoundError, ValueError) as e:
        print(f"make_tokenizers.py: error: {e}", file=sys.stderr)
        return 2
    names = ["spm.model"] if a.shared else ["src.spm.model", "tgt.spm.model"]
    print(f"{', '.join(os.path.join(a.out, n) for n in names)}: {tok.src.get_piece_size()} / "
          f"{tok.tgt.get_piece_size()} pieces from {len(src)} training pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())

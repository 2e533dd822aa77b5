#!/usr/bin/env python3
"""Translate with the reference translator (PyTorch): a model directory and sentences.

  python3 models/translate.py MODEL_DIR [--beam K] [--alpha A] [--beta B] [--nbest N]
                              [--max-len-a A] [--max-len-b B] [--alignment] [SENTENCE ...]

MODEL_DIR holds model.safetensors and src.spm.model + tgt.spm.model (or spm.model).
Sentences come from the arguments, or one per line on stdin; one output line per
input line, in order (an empty line gives an empty line). Search options default
to the model's `decoding` config. With --nbest N > 1 each input gives N lines
`INDEX ||| TRANSLATION ||| SCORE`. With --alignment, ` ||| ` and the hard
alignment (Pharaoh `i-j` pairs over source and target pieces, argmax of each
target piece's attention row) follow each translation.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from softalign_ref import export, search  # noqa: E402
from softalign_ref.tokenizer import Tokenizers  # noqa: E402


def hard_alignment(attn, n_out):
    """Pharaoh pairs source-target over pieces: for each output piece, its argmax source piece
    (the EOS positions are left out)."""
    pairs = []
    S = attn.shape[1]
    for i in range(n_out):
        if float(attn[i].sum()) == 0.0:  # encdec: no attention
            continue
        j = int(torch.argmax(attn[i, :S - 1])) if S > 1 else 0
        pairs.append(f"{j}-{i}")
    return " ".join(pairs)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model_dir")
    ap.add_argument("sentences", nargs="*", help="sentences (default: stdin, one per line)")
    ap.add_argument("--beam", type=int)
    ap.add_argument("--alpha", type=float)
    ap.add_argument("--beta", type=float)
    ap.add_argument("--max-len-a", type=float)
    ap.add_argument("--max-len-b", type=float)
    ap.add_argument("--nbest", type=int)
    ap.add_argument("--alignment", action="store_true")
    ap.add_argument("--batch", type=int, default=32, help="sentences per batch")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_intermixed_args(argv)
    torch.set_num_threads(args.threads)
    try:
        model, cfg = export.load(os.path.join(args.model_dir, "model.safetensors"))
        tok = Tokenizers.load(args.model_dir)
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    lines = args.sentences if args.sentences else [l.rstrip("\n") for l in sys.stdin]
    opts = dict(beam=args.beam, alpha=args.alpha, beta=args.beta, max_len_a=args.max_len_a,
                max_len_b=args.max_len_b, nbest=args.nbest)
    opts = {k: v for k, v in opts.items() if v is not None}
    if "beam" in opts and "nbest" not in opts:
        opts["nbest"] = min(cfg.decoding["nbest"], opts["beam"])
    nbest = opts.get("nbest", cfg.decoding["nbest"])
    srcs, todo = [], []
    for k, line in enumerate(lines):
        if not line.strip():
            continue
        ids = tok.encode_src(line)
        if len(ids) > cfg.max_src_len:
            print(f"warning: line {k + 1} has {len(ids)} pieces; cut to max_src_len = {cfg.max_src_len}",
                  file=sys.stderr)
            ids = ids[:cfg.max_src_len - 1] + [cfg.eos_id]
        srcs.append(ids)
        todo.append(k)
    try:
        results = search.translate_ids(model, srcs, batch_size=args.batch, **opts)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    by_line = dict(zip(todo, results))
    for k in range(len(lines)):
        hyps = by_line.get(k, [])
        if nbest == 1:
            out = tok.decode_tgt(hyps[0].ids) if hyps else ""
            if args.alignment and hyps:
                out += " ||| " + hard_alignment(hyps[0].attn, len(hyps[0].ids))
            print(out)
        else:
            for h in hyps:
                out = f"{k} ||| {tok.decode_tgt(h.ids)} ||| {h.score:.6f}"
                if args.alignment:
                    out += " ||| " + hard_alignment(h.attn, len(h.ids))
                print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

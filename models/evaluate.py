#!/usr/bin/env python3
"""Evaluate a model directory on a test set: BLEU and chrF2 (sacrebleu), BLEU by source length,
the outputs with a word repeated back to back and the numbers kept.

  python3 models/evaluate.py MODEL_DIR --src test.en --ref test.fr [--beam K]
  python3 models/evaluate.py --hyp hyps.txt --src test.en --ref test.fr   (score given output)

MODEL_DIR holds model.safetensors and its SentencePiece model(s). Search options
default to the model's config (`decoding`); --beam 1 is greedy.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from softalign_ref import evaluate as E  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model_dir", nargs="?", help="model directory (omit with --hyp)")
    p.add_argument("--src", required=True, help="source sentences, one per line")
    p.add_argument("--ref", required=True, help="reference translations, one per line")
    p.add_argument("--hyp", help="score these translations instead of translating")
    p.add_argument("--beam", type=int, help="beam size (default: the model's)")
    p.add_argument("--alpha", type=float, help="length penalty (default: the model's)")
    p.add_argument("--beta", type=float, help="coverage penalty (default: the model's)")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--limit", type=int, help="only the first N sentences")
    p.add_argument("--out", help="write the translations to this file")
    p.add_argument("--json", help="write the scores as JSON to this file")
    p.add_argument("--short-words", type=int, default=4,
                   help="also score the sentences whose source has at most this many words (interface strings)")
    a = p.parse_args(argv)
    try:
        srcs, refs = E.read_lines(a.src), E.read_lines(a.ref)
        if len(srcs) != len(refs):
            raise ValueError(f"{a.src} has {len(srcs)} lines but {a.ref} has {len(refs)}")
        if a.limit:
            srcs, refs = srcs[:a.limit], refs[:a.limit]
        if a.hyp:
            hyps = E.read_lines(a.hyp)[:len(srcs)]
            setting = f"hypotheses from {a.hyp}"
        else:
            if not a.model_dir:
                raise ValueError("give a MODEL_DIR or --hyp")
            import torch
            torch.set_num_threads(a.threads)
            hyps, opts = E.translate_model_dir(a.model_dir, srcs, beam=a.beam, alpha=a.alpha,
                                               beta=a.beta, batch_size=a.batch_size)
            setting = "reference translator, " + ", ".join(f"{k}={v}" for k, v in opts.items())
        result = E.score(hyps, refs)
        buckets = E.bleu_by_length(srcs, hyps, refs)
        short = [i for i, src in enumerate(srcs) if len(src.split()) <= a.short_words]
        short_result = E.score([hyps[i] for i in short], [refs[i] for i in short]) if short else None
    except (FileNotFoundError, ValueError) as e:
        print(f"evaluate.py: error: {e}", file=sys.stderr)
        return 2
    print(f"[{setting}]")
    print(E.format_report(result, buckets))
    if short_result:
        print(f"sources of at most {a.short_words} words ({len(short)} sentences): "
              f"BLEU {short_result['bleu']:.2f}  chrF2 {short_result['chrf']:.2f}")
    repeats, repeat_share = E.repeated_word_rate(hyps)
    ref_repeats, ref_share = E.repeated_word_rate(refs)
    kept, numbers = E.numbers_kept(srcs, hyps)
    print(f"outputs with a word repeated back to back: {repeats}/{len(hyps)} ({100 * repeat_share:.2f}%; "
          f"references {100 * ref_share:.2f}%); numbers of two digits or more kept: {kept}/{numbers} "
          f"({100 * kept / max(numbers, 1):.1f}%)")
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write("\n".join(hyps) + "\n")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"setting": setting, **result, "by_length": buckets,
                       "repeated_word_outputs": repeats, "numbers_kept": kept, "numbers": numbers,
                       "short": dict(max_words=a.short_words, sentences=len(short), **(short_result or {}))},
                      f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Copy-through of names and identifiers, measured (TranslatorOptions::copy_through).

  .venv/bin/python models/measure_copy.py MODEL SRC REF [--cli build/bin/softalign]
      [--limit N] [--beam K] [--markdown]

Translates SRC with `softalign translate --no-copy-through` (off) and
`--copy-through` (on), the model's default search unless --beam, and prints for each:
- BLEU and chrF2 against REF (sacrebleu defaults), on all sentences and on
  those with a protected span;
- the identifier copy rate: of the source's protected spans (the runtime's own
  detector, read from `--json`'s protected_spans), the share that appears
  unchanged in the output as a whole token; and the same over the spans that
  appear unchanged in the reference (those a translator copied), which is the
  rate that matters.
"""
import argparse
import json
import re
import subprocess
import sys

import sacrebleu


def translate(cli, model, lines, method, beam, json_out=False):
    cmd = [cli, "translate", "-m", model, "--copy-through" if method == "on" else "--no-copy-through"]
    if beam:
        cmd += ["--beam", str(beam)]
    if json_out:
        cmd.append("--json")
    return run_cli(cmd, lines)


def run_cli(cmd, lines):
    """The CLI's output lines for `lines` on stdin (one each; exits when they do not match).
    An over-long source without a place to split gives an empty line and exit 1."""
    p = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True)
    out = p.stdout.split("\n")[: len(lines)]
    if len(out) != len(lines):
        sys.exit(f"{' '.join(cmd)}: {len(out)} lines for {len(lines)}\n{p.stderr}")
    return out


def spans_of(cli, model, lines):
    """The protected spans of each line, as strings (the runtime's detector)."""
    spans = []
    for line, row in zip(lines, translate(cli, model, lines, "on", 1, json_out=True)):
        raw = line.encode("utf-8")
        obj = json.loads(row) if row else {}
        spans.append([raw[b:e].decode("utf-8", "replace") for b, e in obj.get("protected_spans", [])])
    return spans


def has_token(text, span):
    """`span` in `text` with no letter, digit or '_' glued to either end (as the runtime checks)."""
    word = r"[A-Za-z0-9_]"
    pre = rf"(?<!{word})" if re.match(word, span[:1]) else ""
    post = rf"(?!{word})" if re.match(word, span[-1:]) else ""
    return re.search(pre + re.escape(span) + post, text) is not None


def measure_arguments(doc):
    """The arguments every measure_*.py script takes: MODEL SRC REF [--cli]."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("src")
    ap.add_argument("ref")
    ap.add_argument("--cli", default="build/bin/softalign")
    return ap


def main():
    ap = measure_arguments(__doc__)
    ap.add_argument("--limit", type=int, default=0, help="the first N lines only")
    ap.add_argument("--beam", type=int, default=0, help="beam size (default: the model's)")
    ap.add_argument("--markdown", action="store_true", help="one markdown table row per method")
    a = ap.parse_args()
    src = open(a.src, encoding="utf-8").read().split("\n")
    ref = open(a.ref, encoding="utf-8").read().split("\n")
    if src and src[-1] == "":
        src, ref = src[:-1], ref[: len(src) - 1]
    if a.limit:
        src, ref = src[: a.limit], ref[: a.limit]
    assert len(src) == len(ref), "SRC and REF differ in length"
    spans = spans_of(a.cli, a.model, src)
    n_spans = sum(len(s) for s in spans)
    in_ref = [[s for s in ss if has_token(r, s)] for ss, r in zip(spans, ref)]
    n_ref = sum(len(s) for s in in_ref)
    print(f"{len(src)} sentences, {sum(1 for s in spans if s)} with protected spans: {n_spans} spans, "
          f"{n_ref} of them unchanged in the reference", file=sys.stderr)
    if a.markdown:
        print("| copy-through | BLEU | chrF2 | BLEU, sentences with spans | chrF2, sentences with spans | spans copied "
              "| spans copied, of those the reference copies |")
        print("|---|---|---|---|---|---|---|")
    for method in ("off", "on"):
        hyp = translate(a.cli, a.model, src, method, a.beam)
        bleu = sacrebleu.corpus_bleu(hyp, [ref]).score
        chrf = sacrebleu.corpus_chrf(hyp, [ref]).score
        with_spans = [i for i, ss in enumerate(spans) if ss]
        sub_hyp, sub_ref = [hyp[i] for i in with_spans], [ref[i] for i in with_spans]
        bleu_s = sacrebleu.corpus_bleu(sub_hyp, [sub_ref]).score
        chrf_s = sacrebleu.corpus_chrf(sub_hyp, [sub_ref]).score
        copied = sum(has_token(h, s) for h, ss in zip(hyp, spans) for s in ss)
        copied_ref = sum(has_token(h, s) for h, ss in zip(hyp, in_ref) for s in ss)
        rate = 100.0 * copied / max(n_spans, 1)
        rate_ref = 100.0 * copied_ref / max(n_ref, 1)
        if a.markdown:
            print(f"| {method} | {bleu:.2f} | {chrf:.2f} | {bleu_s:.2f} | {chrf_s:.2f} | {copied}/{n_spans} ({rate:.1f}%) | "
                  f"{copied_ref}/{n_ref} ({rate_ref:.1f}%) |")
        else:
            print(f"{method:4s} BLEU {bleu:6.2f}  chrF2 {chrf:6.2f}  (with spans: {bleu_s:6.2f} {chrf_s:6.2f})"
                  f"  spans copied {copied}/{n_spans} ({rate:.1f}%)"
                  f"  of those in the reference {copied_ref}/{n_ref} ({rate_ref:.1f}%)")


if __name__ == "__main__":
    main()

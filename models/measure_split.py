#!/usr/bin/env python3
"""Sentence-level decoding of multi-sentence sources, measured: each source translated
whole, then sentence by sentence (the runtime's sentence splitter, split_sentences in
runtime/src/text/split.cpp: after . ! ? and their runs and closing quotes/brackets, before
whitespace) with the parts' translations joined; BLEU overall, on the sources of more
than one sentence, and by source length.

  .venv/bin/python models/measure_split.py MODEL SRC REF [--cli build/bin/softalign] [-- CLI OPTIONS]
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from softalign_ref import evaluate as E  # noqa: E402


def sentences(s):
    """The runtime's split_sentences (text.cpp), for text without protected spans."""
    parts, start, i = [], 0, 0
    while i < len(s):
        if s[i] not in ".!?":
            i += 1
            continue
        j = i + 1
        while j < len(s) and s[j] in ".!?\"')]":
            j += 1
        if j < len(s) and s[j] in " \t\n":
            parts.append(s[start:j].strip())
            start = j
        i = j
    parts.append(s[start:].strip())
    return [p for p in parts if p]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model")
    p.add_argument("src")
    p.add_argument("ref")
    p.add_argument("--cli", default="build/bin/softalign")
    p.add_argument("cli_options", nargs="*", help="after --: options for softalign translate")
    a = p.parse_args()
    src, ref = E.read_lines(a.src), E.read_lines(a.ref)
    cmd = [a.cli, "translate", "-m", a.model, *a.cli_options]

    def translate(lines):
        out = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True).stdout.split("\n")
        return out[:len(lines)]

    parts, owner = [], []
    for k, s in enumerate(src):
        for part in sentences(s) or [""]:
            parts.append(part)
            owner.append(k)
    whole, joined = translate(src), [""] * len(src)
    for k, h in zip(owner, translate(parts)):
        joined[k] = (joined[k] + " " + h).strip()
    multi = [k for k, s in enumerate(src) if len(sentences(s)) > 1]
    print(f"{len(src)} sources, {len(multi)} of more than one sentence")
    for name, hyps in (("whole", whole), ("by sentence", joined)):
        r = E.score(hyps, ref)
        m = E.score([hyps[k] for k in multi], [ref[k] for k in multi]) if multi else None
        by_length = "  ".join(f"{b['bucket']}: {b['bleu']:.1f}" for b in E.bleu_by_length(src, hyps, ref) if b["n"])
        print(f"{name:12s} BLEU {r['bleu']:.2f} chrF2 {r['chrf']:.2f}"
              + (f" | multi-sentence BLEU {m['bleu']:.2f}" if m else "") + f" | by length {by_length}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

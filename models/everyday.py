#!/usr/bin/env python3
"""The everyday sentences (models/corpus/everyday.tsv) through the shipped models.

  .venv/bin/python models/everyday.py [--cli build/bin/softalign] [--rows N]

Prints, per pair, a markdown table (English, the model's output, the reference)
and corpus BLEU and chrF2 against the references: what the README and the model
cards show of the models outside software text.
"""
import argparse
import csv
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import softalign_ref  # noqa: E402,F401  (a missing module: one line naming the setup step)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "softalign"))
    p.add_argument("--rows", type=int, help="show only the first N sentences in the tables")
    a = p.parse_args()
    import sacrebleu
    with open(os.path.join(ROOT, "models", "corpus", "everyday.tsv"), encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    src = [r["en"] for r in rows]
    for tgt in ("fr", "de"):
        model = os.path.join(ROOT, "models", f"en-{tgt}", f"en-{tgt}.int8.softalign")
        out = subprocess.run([a.cli, "translate", "-m", model], input="\n".join(src) + "\n",
                             capture_output=True, text=True, check=True).stdout.splitlines()
        refs = [r[tgt] for r in rows]
        bleu = sacrebleu.corpus_bleu(out, [refs]).score
        chrf = sacrebleu.corpus_chrf(out, [refs]).score
        print(f"\n**en→{tgt}** ({len(src)} sentences: BLEU {bleu:.2f}, chrF2 {chrf:.2f}; "
              f"`{os.path.relpath(model, ROOT)}`, beam 5)\n")
        print(f"| English | softalign | reference |\n|---|---|---|")
        for s, h, r in list(zip(src, out, refs))[: a.rows or len(src)]:
            print(f"| {s} | {h} | {r} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

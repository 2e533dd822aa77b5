#!/usr/bin/env python3
"""A run's learning curve on each part of its dev set: greedy BLEU of its snapshots.

  .venv/bin/python models/dev_curve.py RUN_DIR --dev DEV_DIR --src en --tgt fr \
      [--parts ddtp:1245,gettext:1000] [--steps 4000,5000] [--model models/en-fr ...]

Each snapshot in RUN_DIR/snapshots (training.keep_snapshots: the weights of the run's
last evaluations) is converted to int8 (no shortlist) and translates DEV_DIR/dev.SRC
greedy with `softalign translate` (no copy-through: the model itself); BLEU and chrF2
(sacrebleu) against dev.TGT on all lines and on each part. --parts names consecutive
line ranges in order, NAME:COUNT each (a combined dev set is one corpus's dev, then
another's: models/corpus/README.md); the trainer's own dev BLEU is on all lines only.
--model adds a row for a model folder scored the same way (e.g. the shipped one, for
comparison). Prints a markdown table, one row a snapshot or model.
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from choose_on_dev import average, convert, read_dev, run_dev_parser, translate  # noqa: E402
from softalign_ref import evaluate as E  # noqa: E402
from softalign_ref.train import snapshot_dirs  # noqa: E402


def parse_parts(text, total):
    """"a:3,b:2" → [("a", 0, 3), ("b", 3, 5)]; the counts must fit in `total` lines."""
    parts, start = [], 0
    for item in filter(None, (text or "").split(",")):
        name, _, count = item.partition(":")
        if not name or not count.isdigit() or int(count) < 1:
            raise ValueError(f"--parts: {item!r} is not NAME:COUNT")
        parts.append((name, start, start + int(count)))
        start += int(count)
    if start > total:
        raise ValueError(f"--parts covers {start} lines; the dev set has {total}")
    return parts


def main(argv=None):
    p = run_dev_parser(__doc__)
    p.add_argument("--parts", default="", help="NAME:COUNT,... consecutive line ranges of dev")
    p.add_argument("--steps", default="", help="only these snapshot steps (comma-separated)")
    p.add_argument("--model", action="append", default=[], help="also score this model folder")
    a = p.parse_args(argv)
    src_lines, refs = read_dev(a)
    try:
        parts = parse_parts(a.parts, len(src_lines))
    except ValueError as e:
        p.error(str(e))
    exported = os.path.join(a.run_dir, "model")  # its tokenizers go with every snapshot
    snaps = snapshot_dirs(a.run_dir)
    if a.steps:
        wanted = {f"step-{s.strip()}" for s in a.steps.split(",")}
        snaps = [s for s in snaps if os.path.basename(s) in wanted]
    if not snaps and not a.model:
        sys.exit(f"dev_curve.py: no snapshots to score in {a.run_dir}/snapshots")
    names = ["all"] + [n for n, _, _ in parts]
    print("| snapshot | " + " | ".join(f"{n} BLEU | {n} chrF2" for n in names) + " |")
    print("|---|" + "---:|" * (2 * len(names)))
    with tempfile.TemporaryDirectory() as work:
        sa = os.path.join(work, "m.int8.softalign")
        rows = [(os.path.basename(s), s) for s in snaps] + [(m, m) for m in a.model]
        for i, (label, folder) in enumerate(rows):
            if i < len(snaps):  # a snapshot: weights only, the export's tokenizers
                average([folder], exported, os.path.join(work, label))
                folder = os.path.join(work, label)
            convert(a.build_dir, folder, sa)
            hyps = translate(a.build_dir, sa, src_lines, ["--beam", "1"])
            scores = [E.score(hyps, refs)] + [E.score(hyps[b:e], refs[b:e]) for _, b, e in parts]
            print(f"| {label} | " +
                  " | ".join(f"{s['bleu']:.2f} | {s['chrf']:.2f}" for s in scores) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

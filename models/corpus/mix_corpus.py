#!/usr/bin/env python3
"""The training mix of one pair: the corpora the recipes in this folder build,
each repeated or sampled by its weight, kept apart from every held-out sentence.

  python3 models/corpus/mix_corpus.py models/corpus/mix-en-de.tsv --out runs/mix/en-de

The spec (TSV, '#' comments) has one line per source:

  name  folder  weight  dev

- folder holds train.{en,XX}, dev.{en,XX} and (for held-out checks) test.{en,XX};
- weight: how many times its train pairs go in (2 = twice, 0.25 = a quarter,
  sampled by SHA-1 of the pair, so the same quarter on every build);
- dev: how many of its dev pairs go into the mix's dev set (the first ones).

Every train pair whose English or translation, normalised (ding_corpus.norm:
case, punctuation and spacing aside), is a dev or test sentence of ANY source
in the spec is dropped, so no held-out sentence of one corpus has a near-copy in
the train part of another. Writes OUT/train.*, OUT/dev.* and OUT/MIX.tsv (what
each source gave). Python's standard library only; deterministic.
"""
import argparse
import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ding_corpus import norm  # noqa: E402


def read_split(folder, split, tgt):
    paths = [os.path.join(folder, f"{split}.{lang}") for lang in ("en", tgt)]
    if not all(os.path.isfile(p) for p in paths):
        return [], []
    with open(paths[0], encoding="utf-8") as f:
        en = f.read().split("\n")[:-1]
    with open(paths[1], encoding="utf-8") as f:
        xx = f.read().split("\n")[:-1]
    if len(en) != len(xx):
        raise SystemExit(f"{paths[0]} and {paths[1]} differ in length ({len(en)}, {len(xx)})")
    return en, xx


def read_spec(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 4:
                raise SystemExit(f"{path}:{n}: want 4 tab-separated fields (name, folder, weight, dev)")
            rows.append((parts[0], parts[1], float(parts[2]), int(parts[3])))
    return rows


def sampled(en, xx, fraction):
    """The pairs whose SHA-1 falls under `fraction` of the range."""
    limit = int(fraction * 2**32)
    return [k for k, (a, b) in enumerate(zip(en, xx))
            if int.from_bytes(hashlib.sha1(f"{a}\t{b}".encode()).digest()[:4], "big") < limit]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec")
    p.add_argument("--out", required=True)
    p.add_argument("--root", default=".", help="folders in the spec are relative to this (default: .)")
    a = p.parse_args(argv)
    spec = read_spec(a.spec)
    tgt = os.path.basename(os.path.normpath(a.out)).split("-")[-1]
    held = set()
    for _, folder, _, _ in spec:
        for split in ("dev", "test"):
            en, xx = read_split(os.path.join(a.root, folder), split, tgt)
            held.update(norm(s) for s in en)
            held.update(norm(s) for s in xx)
    held.discard("")
    train_en, train_xx, dev_en, dev_xx, report = [], [], [], [], []
    for name, folder, weight, dev in spec:
        en, xx = read_split(os.path.join(a.root, folder), "train", tgt)
        if not en:
            raise SystemExit(f"{name}: no train.en and train.{tgt} in {folder} (the language is --out's "
                             f"last '-' part: name it en-fr or en-de)")
        keep = [k for k in range(len(en)) if norm(en[k]) not in held and norm(xx[k]) not in held]
        dropped = len(en) - len(keep)
        en, xx = [en[k] for k in keep], [xx[k] for k in keep]
        whole, part = int(weight), weight - int(weight)
        idx = list(range(len(en))) * whole + (sampled(en, xx, part) if part > 0 else [])
        train_en += [en[k] for k in idx]
        train_xx += [xx[k] for k in idx]
        den, dxx = read_split(os.path.join(a.root, folder), "dev", tgt)
        dev_en += den[:dev]
        dev_xx += dxx[:dev]
        words = sum(len(en[k].split()) for k in idx)
        report.append((name, folder, weight, len(en) + dropped, dropped, len(idx), words, min(dev, len(den))))
    os.makedirs(a.out, exist_ok=True)
    for split, en, xx in (("train", train_en, train_xx), ("dev", dev_en, dev_xx)):
        for lang, lines in (("en", en), (tgt, xx)):
            with open(os.path.join(a.out, f"{split}.{lang}"), "w", encoding="utf-8") as f:
                f.write("".join(s + "\n" for s in lines))
    total_words = sum(r[6] for r in report) or 1
    with open(os.path.join(a.out, "MIX.tsv"), "w", encoding="utf-8") as f:
        f.write("source\tfolder\tweight\ttrain_pairs\tdropped_held_out\tpairs_in_mix\tenglish_words_in_mix\tshare\tdev\n")
        for name, folder, weight, n, dropped, m, words, dev in report:
            f.write(f"{name}\t{folder}\t{weight:g}\t{n}\t{dropped}\t{m}\t{words}\t{words / total_words:.3f}\t{dev}\n")
    with open(os.path.join(a.out, "MIX.tsv"), encoding="utf-8") as f:
        sys.stdout.write(f.read())
    print(f"train {len(train_en)} pairs, dev {len(dev_en)} pairs -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

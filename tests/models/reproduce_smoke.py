#!/usr/bin/env python3
"""Smoke test of models/reproduce.py: all nine models, tiny (size 8), 2 training steps
each, on a toy corpus made of this folder's en-fr sentences and their expected outputs,
through training, conversion (fp32 and int8), translation by the CLI, scoring and both
tables. It shows that the pipeline runs for every variant; the figures mean nothing.

  reproduce_smoke.py --build-dir BUILD --root REPO
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--root", required=True)
    a = ap.parse_args()
    with open(os.path.join(a.root, "tests", "models", "en-fr.int8.expected.tsv"), encoding="utf-8") as f:
        pairs = [line.rstrip("\n").split("\t")[:2] for line in f if line.strip() and not line.startswith("#")]
    with tempfile.TemporaryDirectory() as tmp:
        corpus = os.path.join(tmp, "corpus")
        os.makedirs(corpus)
        for split in ("train", "dev", "test"):
            for k, lang in ((0, "en"), (1, "fr")):
                with open(os.path.join(corpus, f"{split}.{lang}"), "w", encoding="utf-8") as f:
                    f.write("".join(p[k] + "\n" for p in pairs))
        out = os.path.join(tmp, "runs")
        p = subprocess.run([sys.executable, os.path.join(a.root, "models", "reproduce.py"), "all",
                            "--corpus", corpus, "--out", out, "--build-dir", a.build_dir, "--size", "8",
                            "--steps", "2", "--speed-sentences", "4", "--speed-runs", "1", "--no-write"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stderr[-4000:], file=sys.stderr)
            return 1
        rows = json.load(open(os.path.join(out, "results.json"), encoding="utf-8"))["rows"]
        names = [r["name"] for r in rows]
        assert len(names) == 9 and names[:2] == ["encdec", "bahdanau"], names
        for r in rows:
            assert r["int8_pieces_per_s"] > 0 and r["dev_ppl"] > 1, r
            assert len(r["by_length"]) == 6 and sum(b["n"] for b in r["by_length"]) == len(pairs), r
        assert "| RNNencdec (no attention) |" in p.stdout and "| local-p (general) |" in p.stdout, p.stdout
        print(f"reproduce.py: {len(rows)} models trained, converted, translated and tabulated")
    return 0


if __name__ == "__main__":
    sys.exit(main())

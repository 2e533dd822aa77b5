#!/usr/bin/env python3
"""Smoke test of models/distill.py: the shipped en-fr file as the teacher of a toy corpus
(the sources of tests/models/en-fr.int8.expected.tsv, one empty source added), greedy, in
parts of 5 lines.
The distilled targets must be the shipped file's greedy outputs of
tests/models/en-fr.int8.expected.tsv, the empty source dropped, the dev files copied; a
part removed is redone on the next run and the result is the same.

  distill_smoke.py --build-dir BUILD --root REPO
"""
import json
import os
import subprocess
import sys
import tempfile

from toy_corpus import fail as fail_test, smoke_args, write_toy_corpus


def fail(msg):
    fail_test("distill_smoke", msg)


def main():
    a = smoke_args()
    with open(os.path.join(a.root, "tests", "models", "en-fr.int8.expected.tsv"), encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip() and not line.startswith("#")]
    greedy = {src: out for src, out, _ in rows}
    with tempfile.TemporaryDirectory() as tmp:
        corpus = os.path.join(tmp, "corpus")
        n = write_toy_corpus(a.root, corpus, ("train", "dev"))
        for lang in ("en", "fr"):
            with open(os.path.join(corpus, f"train.{lang}"), "a", encoding="utf-8") as f:
                f.write("\n")  # an empty source: an empty translation, dropped
        out = os.path.join(tmp, "distilled")
        cmd = [sys.executable, os.path.join(a.root, "models", "distill.py"),
               "--teacher", os.path.join(a.root, "models", "en-fr", "en-fr.int8.softalign"),
               "--corpus", corpus, "--src", "en", "--tgt", "fr", "--out", out, "--beam", "1", "--chunk", "5",
               "--cli", os.path.join(a.build_dir, "bin", "softalign")]

        def run():
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                fail(f"exit {p.returncode}: {p.stderr[-3000:]}")
            return json.loads(p.stdout.strip().splitlines()[-1])

        first = run()
        if (first["sources"], first["kept"], first["dropped_empty"], first["chunks_resumed"]) != (n + 1, n, 1, 0):
            fail(f"counts: {first}")
        with open(os.path.join(out, "train.en"), encoding="utf-8") as f:
            src = f.read().splitlines()
        with open(os.path.join(out, "train.fr"), encoding="utf-8") as f:
            tgt = f.read().splitlines()
        if len(src) != n or len(tgt) != n:
            fail(f"{len(src)} and {len(tgt)} lines kept, {n} expected")
        for s, t in zip(src, tgt):
            if greedy.get(s) != t:
                fail(f"{s!r}: {t!r}, the shipped file's greedy output is {greedy.get(s)!r}")
        for name in ("dev.en", "dev.fr"):
            if not os.path.isfile(os.path.join(out, name)):
                fail(f"{name} not copied")
        os.remove(os.path.join(out, "parts", "00001.fr"))
        second = run()
        if second["chunks_resumed"] != 2 or second["kept"] != n:
            fail(f"resume: {second}")
        with open(os.path.join(out, "train.fr"), encoding="utf-8") as f:
            if f.read().splitlines() != tgt:
                fail("the resumed run's targets differ")
    print(f"distill_smoke: {n} pairs distilled as the shipped file's greedy outputs, the empty source dropped, "
          "a removed part redone")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""What batching can gain on this CPU: batch 32 against batch 1, on real test sentences and on
one sentence repeated.

  .venv/bin/python tests/bench/batch_ceiling.py [--model models/en-fr/en-fr.int8.softalign]

A batch of real sentences loses to three things that are not the products: sentences finish at
different steps (the batch thins out), the shortlist of a batch is the union of its sentences'
shortlists (more output rows per row than one sentence's own), and each row's attention runs
over its own source whatever the batch. One sentence repeated removes the first two: every row
of the batch lives for the same steps and the union is one sentence's shortlist. Its ratio is
the most batching gives on this CPU with these kernels; the real sentences' ratio is what
translate_batch gives.

softalign_bench (--bench, default build/bin/softalign_bench), 1 thread, greedy and beam 4,
batch 1 and 32 (their runs interleaved), best of --runs runs; prints sentences/s and the
ratios. Nothing here fails on a timing.
"""
import argparse
import json
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def rate(a, inp, sentences, batch, beam):
    p = subprocess.run([a.bench, "--model", a.model, "--input", inp, "--sentences", str(sentences),
                        "--batch", str(batch), "--beam", str(beam), "--threads", "1"],
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])["sentences_per_s"]


def bench(a, inp, sentences, beam):
    """Best sentences/s at batch 1 and at batch 32 over --runs runs, the runs of the two
    interleaved: on a shared machine the best run is the one least disturbed."""
    runs = [(rate(a, inp, sentences, 1, beam), rate(a, inp, sentences, 32, beam)) for _ in range(a.runs)]
    return max(r[0] for r in runs), max(r[1] for r in runs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    ap.add_argument("--source", default=os.path.join(ROOT, "..", "shared", "data", "ddtp", "en-fr", "test.en"))
    ap.add_argument("--sentences", type=int, default=640, help="first N test sentences (and N repeats)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "bin", "softalign_bench"))
    a = ap.parse_args()
    with open(a.source, encoding="utf-8") as f:
        real = [line.rstrip("\n") for line in f][:a.sentences]
    # The repeated sentence: the first one of median length in words.
    median_words = sorted(len(s.split()) for s in real)[len(real) // 2]
    one = next(s for s in real if len(s.split()) == median_words)
    print(f"model {os.path.relpath(a.model, ROOT)}; {len(real)} sentences; repeated: {one!r} "
          f"({median_words} words); best of {a.runs} runs, 1 thread\n")
    print("| input | beam | batch 1 sent/s | batch 32 sent/s | batch 32 ÷ batch 1 |")
    print("|---|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        inputs = {"test sentences": real, "one sentence repeated": [one] * len(real)}
        for name, lines in inputs.items():
            path = os.path.join(tmp, name.replace(" ", "_") + ".txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write("".join(s + "\n" for s in lines))
            for beam in (1, 4):
                b1, b32 = bench(a, path, len(lines), beam)
                print(f"| {name} | {beam} | {b1:.1f} | {b32:.1f} | {b32 / b1:.2f} |", flush=True)


if __name__ == "__main__":
    main()

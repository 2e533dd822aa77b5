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

--baseline BENCH: another build's softalign_bench (an older commit, say), its runs interleaved
with these: each row then also shows the baseline's sentences/s and after ÷ before.
"""
import argparse
import json
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def rate(bench_bin, a, inp, sentences, batch, beam):
    p = subprocess.run([bench_bin, "--model", a.model, "--input", inp, "--sentences", str(sentences),
                        "--batch", str(batch), "--beam", str(beam), "--threads", "1"],
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])["sentences_per_s"]


def bench(a, inp, sentences, beam):
    """Best sentences/s at batch 1 and at batch 32 over --runs runs (and the baseline's), the
    runs interleaved: on a shared machine the best run is the one least disturbed."""
    bins = [a.bench] + ([a.baseline] if a.baseline else [])
    runs = [[rate(b, a, inp, sentences, batch, beam) for b in bins for batch in (1, 32)] for _ in range(a.runs)]
    return [max(r[i] for r in runs) for i in range(len(runs[0]))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    ap.add_argument("--source", default=os.path.join(ROOT, "..", "shared", "data", "ddtp", "en-fr", "test.en"))
    ap.add_argument("--sentences", type=int, default=640, help="first N test sentences (and N repeats)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "bin", "softalign_bench"))
    ap.add_argument("--baseline", help="another build's softalign_bench, measured in the same run")
    a = ap.parse_args()
    with open(a.source, encoding="utf-8") as f:
        real = [line.rstrip("\n") for line in f][:a.sentences]
    # The repeated sentence: the first one of median length in words.
    median_words = sorted(len(s.split()) for s in real)[len(real) // 2]
    one = next(s for s in real if len(s.split()) == median_words)
    print(f"model {os.path.relpath(a.model, ROOT)}; {len(real)} sentences; repeated: {one!r} "
          f"({median_words} words); best of {a.runs} runs, 1 thread\n")
    if a.baseline:
        print("| input | beam | batch 1 sent/s (baseline) | batch 32 sent/s (baseline) | batch 32 ÷ batch 1 "
              "| after ÷ before, batch 1 | batch 32 |")
        print("|---|---|---:|---:|---:|---:|---:|")
    else:
        print("| input | beam | batch 1 sent/s | batch 32 sent/s | batch 32 ÷ batch 1 |")
        print("|---|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        inputs = {"test sentences": real, "one sentence repeated": [one] * len(real)}
        for name, lines in inputs.items():
            path = os.path.join(tmp, name.replace(" ", "_") + ".txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write("".join(s + "\n" for s in lines))
            for beam in (1, 4):
                r = bench(a, path, len(lines), beam)
                b1, b32 = r[0], r[1]
                if a.baseline:
                    o1, o32 = r[2], r[3]
                    print(f"| {name} | {beam} | {b1:.1f} ({o1:.1f}) | {b32:.1f} ({o32:.1f}) | {b32 / b1:.2f} "
                          f"| {b1 / o1:.3f} | {b32 / o32:.3f} |", flush=True)
                else:
                    print(f"| {name} | {beam} | {b1:.1f} | {b32:.1f} | {b32 / b1:.2f} |", flush=True)


if __name__ == "__main__":
    main()

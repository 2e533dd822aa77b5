#!/usr/bin/env python3
"""translate_batch's sentences/s with the Python Translator's default max_batch against max_batch 1
(the library's default, which the binding used before it prepared for lists), side by side.

  PYTHONPATH=build/python .venv/bin/python tests/bench/python_batch_default.py [--source test.en]

The first --sentences lines of the DDTP en-fr test set, the shipped en-fr model, 1 thread, the
model's beam (5) and greedy; the two translators' runs interleaved, best of --runs. Nothing here
fails on a timing.
"""
import argparse
import os
import time

import softalign

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    ap.add_argument("--source", default=os.path.join(ROOT, "..", "shared", "data", "ddtp", "en-fr", "test.en"))
    ap.add_argument("--sentences", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    with open(a.source, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f][:a.sentences]
    model = softalign.Model.load(a.model)
    translators = {"max_batch=1 (before)": softalign.Translator(model, max_batch=1),
                   "default (now)": softalign.Translator(model)}
    for beam in (None, 1):
        best = dict.fromkeys(translators, 0.0)
        for _ in range(a.runs):
            for name, tr in translators.items():
                t0 = time.perf_counter()
                tr.translate_batch(lines, beam_size=beam)
                best[name] = max(best[name], len(lines) / (time.perf_counter() - t0))
        print(f"{len(lines)} sentences, beam {beam or tr.beam}: " + "; ".join(
            f"{name} (max_batch {translators[name].max_batch}, arena {translators[name].arena_bytes / 2**20:.1f} MiB): "
            f"{rate:.1f} sentences/s" for name, rate in best.items()) +
            f"; {best['default (now)'] / best['max_batch=1 (before)']:.2f}x")


if __name__ == "__main__":
    main()

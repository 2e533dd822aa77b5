#!/usr/bin/env python3
"""Smoke test of models/reproduce.py: all nine models at two seeds, tiny (size 8), 2 training
steps each, on a toy corpus made of this folder's en-fr sentences and their expected outputs,
through training, conversion (fp32 and int8), translation by the CLI, scoring and both
tables; then models/ensemble.py --members over two of them; then reproduce.py again with the
trained models gone but one, which must take every model's figures from its result file, train
nothing, and mark the speeds it could not measure again. It shows that the pipeline runs for
every variant; the figures mean nothing.

  reproduce_smoke.py --build-dir BUILD --root REPO
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from toy_corpus import smoke_args, write_toy_corpus


def main():
    a = smoke_args()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = os.path.join(tmp, "corpus")
        n_pairs = write_toy_corpus(a.root, corpus)
        out, results = os.path.join(tmp, "runs"), os.path.join(tmp, "results")
        reproduce = [sys.executable, os.path.join(a.root, "models", "reproduce.py"), "all",
                     "--corpus", corpus, "--out", out, "--results", results, "--build-dir", a.build_dir, "--size", "8",
                     "--steps", "2", "--seeds", "1,2", "--speed-sentences", "4", "--speed-runs", "1", "--no-write"]
        p = subprocess.run(reproduce, capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stderr[-4000:], file=sys.stderr)
            return 1
        rows = json.load(open(os.path.join(out, "results.json"), encoding="utf-8"))["rows"]
        names = [(r["name"], r["seed"]) for r in rows]
        assert len(names) == 18 and names[:4] == [("encdec", 1), ("encdec", 2), ("bahdanau", 1), ("bahdanau", 2)], names
        for r in rows:
            assert r["dev_ppl"] > 1 and r["dev_curve"][-1]["step"] == 2, r
            assert (r["int8_pieces_per_s"] or 0) > 0 if r["seed"] == 1 else r["int8_pieces_per_s"] is None, r
            assert len(r["by_length"]) == 6 and sum(b["n"] for b in r["by_length"]) == n_pairs, r
        assert os.path.isdir(os.path.join(out, "bahdanau-seed2")), os.listdir(out)
        for line in ("| RNNencdec (no attention), seed 2 |", "| RNNsearch − RNNencdec (per seed) |",
                     "| beyond seed noise (ranges apart) |", "| local-p (general) |", "- by mean test BLEU", "- by mean dev perplexity"):
            assert line in p.stdout, (line, p.stdout)
        assert "\\*" not in p.stdout, "every speed was measured at the end of the run"
        print(f"reproduce.py: {len(rows)} models (9 recipes, 2 seeds) trained, converted, translated and tabulated")
        # models/ensemble.py over trained model folders (two of the above: they share the tokenizers).
        members = ",".join(os.path.join(out, name, "model") for name in ("bahdanau", "encdec"))
        p = subprocess.run([sys.executable, os.path.join(a.root, "models", "ensemble.py"), "--members", members,
                            "--corpus", corpus, "--out", os.path.join(tmp, "ensemble"), "--build-dir", a.build_dir,
                            "--precision", "int8", "--beams", "1,2", "--search", "alpha=0.6,beta=0.2"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stderr[-4000:], file=sys.stderr)
            return 1
        table = p.stdout.split("| members |")[-1].splitlines()[2:]
        table = [line for line in table if line.startswith("|")]
        assert len(table) == 3 and all(len(line.split("|")) == 5 for line in table), p.stdout
        print("ensemble.py --members: 1 and 2 members translated and tabulated")
        # Again without the trained models but one: every figure from its result file, nothing
        # trained; the speed measured again on the one int8 file left (a second seed's), the others
        # kept from their result files and marked.
        assert len(os.listdir(results)) == 18, os.listdir(results)
        for entry in os.listdir(out):
            path = os.path.join(out, entry)
            if entry == "luong-global-dot-seed2":
                continue
            if os.path.isdir(path):
                shutil.rmtree(path)
            else:
                os.remove(path)
        p = subprocess.run(reproduce, capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stderr[-4000:], file=sys.stderr)
            return 1
        again = json.load(open(os.path.join(out, "results.json"), encoding="utf-8"))["rows"]
        assert "train.py" not in p.stderr and p.stderr.count("figures from") == 18, p.stderr[-4000:]
        assert [(r["name"], r["seed"], r["bleu_f32"], r["by_length"]) for r in again] == \
            [(r["name"], r["seed"], r["bleu_f32"], r["by_length"]) for r in rows], "result files changed the figures"
        assert all((r["int8_pieces_per_s"] or 0) > 0 for r in again if r["seed"] == 1), again
        assert [r["name"] for r in again if r.get("speed_at_end")] == ["luong-global-dot"], again
        marked = [line for line in p.stdout.splitlines() if line.startswith("| ") and "\\* |" in line]
        assert len(marked) == 7 and not any("dot" in line for line in marked), p.stdout
        print("reproduce.py again: 18 models' figures from their result files, nothing trained")
    return 0


if __name__ == "__main__":
    sys.exit(main())

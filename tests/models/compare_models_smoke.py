#!/usr/bin/env python3
"""Smoke test of models/compare_models.py: the shipped en-fr file against a copy of itself on a
toy DDTP folder (tests/models/en-fr.int8.expected.tsv's pairs) and everyday.tsv. The two
columns must hold the same BLEU, the toy set's BLEU must be the one of the file's outputs
scored directly, and the copy must be found at least as good as the baseline.

  compare_models_smoke.py --build-dir BUILD --root REPO
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from toy_corpus import fail as fail_test, smoke_args, write_toy_corpus


def fail(msg):
    fail_test("compare_models_smoke", msg)


def main():
    a = smoke_args()
    sys.path.insert(0, os.path.join(a.root, "models"))
    from softalign_ref import evaluate as E
    shipped = os.path.join(a.root, "models", "en-fr", "en-fr.int8.softalign")
    cli = os.path.join(a.build_dir, "bin", "softalign")
    with tempfile.TemporaryDirectory() as tmp:
        ddtp = os.path.join(tmp, "ddtp")
        write_toy_corpus(a.root, ddtp, ("test",))
        os.makedirs(os.path.join(tmp, "copy"))
        copy = os.path.join(tmp, "copy", "en-fr.int8.softalign")
        shutil.copyfile(shipped, copy)
        out = os.path.join(tmp, "figures.json")
        p = subprocess.run([sys.executable, os.path.join(a.root, "models", "compare_models.py"), "--pair", "en-fr",
                            copy, "--baseline", shipped, "--ddtp", ddtp, "--runs", os.path.join(tmp, "none"),
                            "--speed-runs", "1", "--cli", cli, "--json", out], capture_output=True, text=True)
        if p.returncode != 0:
            fail(f"exit {p.returncode}: {p.stderr[-3000:]}")
        if "at least as good as the baseline on every set's BLEU" not in p.stdout:
            fail(f"the copy is not found as good as the file:\n{p.stdout}")
        figures = json.load(open(out))["models"]
        base, other = figures["en-fr/en-fr.int8.softalign"], figures["copy/en-fr.int8.softalign"]
        if set(base["sets"]) != {"DDTP", "everyday.py"} or base["sets"] != other["sets"]:
            fail(f"the sets differ: {base['sets']} / {other['sets']}")
        with open(os.path.join(ddtp, "test.en"), encoding="utf-8") as f:
            srcs = f.read().splitlines()
        with open(os.path.join(ddtp, "test.fr"), encoding="utf-8") as f:
            refs = f.read().splitlines()
        hyps = subprocess.run([cli, "translate", "-m", shipped], input="\n".join(srcs) + "\n",
                              capture_output=True, text=True).stdout.splitlines()
        if abs(E.score(hyps, refs)["bleu"] - base["sets"]["DDTP"]["bleu"]) > 1e-9:
            fail("the toy set's BLEU is not the file's outputs' BLEU")
        if not (base["speed"]["greedy"] > 0 and base["speed"]["its beam"] > 0):
            fail(f"no speed figures: {base['speed']}")
        # --sets and --speed-runs 0: a quick look at one set, no speed runs; a wrong name is an error
        cmd = [sys.executable, os.path.join(a.root, "models", "compare_models.py"), "--pair", "en-fr", copy,
               "--baseline", shipped, "--ddtp", ddtp, "--runs", os.path.join(tmp, "none"), "--cli", cli,
               "--speed-runs", "0", "--json", out]
        p = subprocess.run(cmd + ["--sets", "everyday.py"], capture_output=True, text=True)
        if p.returncode != 0 or "the BLEU of the 1 sets run (--sets)" not in p.stdout:
            fail(f"--sets everyday.py: exit {p.returncode}: {p.stdout}{p.stderr[-2000:]}")
        quick = json.load(open(out))["models"]["en-fr/en-fr.int8.softalign"]
        if set(quick["sets"]) != {"everyday.py"} or quick["speed"] or \
                quick["sets"]["everyday.py"] != base["sets"]["everyday.py"]:
            fail(f"--sets everyday.py --speed-runs 0 gave {quick}")
        p = subprocess.run(cmd + ["--sets", "DDTP,nonsense"], capture_output=True, text=True)
        if p.returncode != 2 or "--sets: unknown nonsense" not in p.stderr:
            fail(f"--sets with an unknown name: exit {p.returncode}: {p.stderr[-1000:]}")
    print("compare_models_smoke: the file and its copy side by side, the same figures, the copy as good")


if __name__ == "__main__":
    main()

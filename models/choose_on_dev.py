#!/usr/bin/env python3
"""Choose a run's weights and default search on dev: checkpoint averaging, then alpha/beta.

  .venv/bin/python models/choose_on_dev.py RUN_DIR --dev DEV_DIR --src en --tgt fr \
      --out OUT_DIR [--averages 1,2,3,4,6] [--grid 0.6:0,0.6:0.2,1.0:0.2] [--beam 5] \
      [--start START_DIR --start-shares 0.1,0.25,0.5]

Candidates: RUN_DIR/model (the trainer's export, best by dev BLEU) and the mean of the
last k snapshots in RUN_DIR/snapshots (training.keep_snapshots) for each k of
--averages; with --start (the weights a warm-started run began from), also the best of
those mixed with the start weights at each share of --start-shares (weight-space
interpolation: a fine-tuned model and its start, averaged, often keep more of what the
start knew at little cost to what the run learned). Each is converted to int8 and translates DEV_DIR/dev.SRC with `softalign
translate` greedy (no shortlist, no copy-through: the model itself); the best by BLEU
against dev.TGT then translates it with beam --beam for each alpha:beta of --grid. OUT_DIR
becomes that model folder with the chosen search as its default (export.py average),
ready for models/ship.sh, and OUT_DIR/choice.md holds every figure and the commands.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from softalign_ref import evaluate as E  # noqa: E402
from softalign_ref.train import snapshot_dirs  # noqa: E402


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr[-2000:]}")
    return p.stdout


def average(inputs, like, out_dir, decoding=(), weights=None):
    cmd = [sys.executable, os.path.join(HERE, "export.py"), "average", out_dir, "--like", like]
    for d in decoding:
        cmd += ["--decoding", d]
    if weights:
        cmd += ["--weights", ",".join(repr(w) for w in weights)]
    run(cmd + list(inputs))


def convert(build, model_dir, sa):
    """model_dir's weights as an int8 runtime file `sa` (no shortlist)."""
    run([os.path.join(build, "bin", "softalign-convert"), "--int8",
         os.path.join(model_dir, "model.safetensors"), "-o", sa])


def translate(build, sa, src_lines, search):
    """src_lines translated by `softalign translate` with the model file `sa` (no copy-through)."""
    cmd = [os.path.join(build, "bin", "softalign"), "translate", "-m", sa, "--no-copy-through", "--split-long"]
    cmd += search
    p = subprocess.run(cmd, input="\n".join(src_lines) + "\n", capture_output=True, text=True)
    hyps = p.stdout.split("\n")[:len(src_lines)]
    if len(hyps) != len(src_lines):
        sys.exit(f"{' '.join(cmd)}: {len(hyps)} lines for {len(src_lines)}\n{p.stderr[-2000:]}")
    return hyps


def dev_bleu(build, sa, src_lines, refs, search):
    return E.score(translate(build, sa, src_lines, search), refs)


def run_dev_parser(doc):
    """The command line a run's tools share: RUN_DIR --dev DIR --src --tgt [--build-dir]."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run_dir")
    p.add_argument("--dev", required=True, help="folder with dev.SRC and dev.TGT")
    p.add_argument("--src", required=True)
    p.add_argument("--tgt", required=True)
    p.add_argument("--build-dir", default=os.path.join(HERE, "..", "build"))
    return p


def read_dev(a):
    """(source lines, references) of DEV/dev.SRC and dev.TGT."""
    return E.read_lines(os.path.join(a.dev, f"dev.{a.src}")), E.read_lines(os.path.join(a.dev, f"dev.{a.tgt}"))


def main(argv=None):
    p = run_dev_parser(__doc__)
    p.add_argument("--out", required=True, help="the chosen model folder (created)")
    p.add_argument("--averages", default="1,2,3,4,6", help="numbers of last snapshots to average")
    p.add_argument("--grid", default="0.6:0,0.6:0.2,1.0:0,1.0:0.2,0.8:0.3,1.0:0.4",
                   help="alpha:beta pairs for the beam search")
    p.add_argument("--beam", type=int, default=5)
    p.add_argument("--start", metavar="START_DIR",
                   help="the weights the run was warm-started from (a model directory)")
    p.add_argument("--start-shares", default="0.1,0.25,0.5",
                   help="with --start: the start weights' shares to try with the best candidate")
    a = p.parse_args(argv)
    if a.start:
        try:
            shares = [float(x) for x in a.start_shares.split(",")]
        except ValueError:
            sys.exit(f"choose_on_dev.py: --start-shares: not numbers: {a.start_shares!r}")
        if not all(0 < x < 1 for x in shares):
            sys.exit(f"choose_on_dev.py: --start-shares: each share must be between 0 and 1, got {a.start_shares!r}")
        if not os.path.isfile(os.path.join(a.start, "model.safetensors")):
            sys.exit(f"choose_on_dev.py: no model.safetensors in --start {a.start}")
    src_lines, refs = read_dev(a)
    exported = os.path.join(a.run_dir, "model")
    if not os.path.isfile(os.path.join(exported, "model.safetensors")):
        sys.exit(f"choose_on_dev.py: no exported model in {exported}")
    snaps = snapshot_dirs(a.run_dir)
    ks = sorted({int(k) for k in a.averages.split(",") if 0 < int(k) <= len(snaps)})
    rows, grid_rows = [], []
    with tempfile.TemporaryDirectory() as work:
        cands = [("the export (best dev BLEU in training)", [exported])]
        cands += [(f"mean of the last {k} snapshot{'s' if k > 1 else ''}", snaps[-k:]) for k in ks]
        best = None

        def score(i, name, inputs, weights=None):
            nonlocal best
            d, sa = os.path.join(work, f"cand{i}"), os.path.join(work, f"cand{i}.int8.softalign")
            average(inputs, exported, d, weights=weights)
            convert(a.build_dir, d, sa)
            s = dev_bleu(a.build_dir, sa, src_lines, refs, ["--beam", "1"])
            steps = ", ".join(os.path.basename(os.path.normpath(x)) for x in inputs)
            if weights:
                steps += f" (weights {', '.join(f'{w:.3g}' for w in weights)})"
            rows.append((name, steps, s))
            print(f"{name} [{steps}]: greedy dev BLEU {s['bleu']:.2f} chrF2 {s['chrf']:.2f}", flush=True)
            if best is None or s["bleu"] > best[2]["bleu"]:
                best = (name, inputs, s, sa, weights)

        for i, (name, inputs) in enumerate(cands):
            score(i, name, inputs)
        if a.start:
            base_name, base_inputs = best[0], best[1]
            for j, share in enumerate(shares):
                rest = (1 - share) / len(base_inputs)
                score(len(cands) + j, f"{base_name}, with the start weights at {share:g}",
                      [a.start] + list(base_inputs), [share] + [rest] * len(base_inputs))
        chosen = None
        for pair in a.grid.split(","):
            alpha, beta = (float(x) for x in pair.split(":"))
            s = dev_bleu(a.build_dir, best[3], src_lines, refs,
                         ["--beam", str(a.beam), "--alpha", str(alpha), "--beta", str(beta)])
            grid_rows.append((alpha, beta, s))
            print(f"beam {a.beam} alpha {alpha} beta {beta}: dev BLEU {s['bleu']:.2f} chrF2 {s['chrf']:.2f}",
                  flush=True)
            if chosen is None or s["bleu"] > chosen[2]["bleu"]:
                chosen = (alpha, beta, s)
        decoding = [f"beam={a.beam}", f"alpha={chosen[0]}", f"beta={chosen[1]}"]
        if os.path.isdir(a.out):
            shutil.rmtree(a.out)
        average(best[1], exported, a.out, decoding, best[4])
    lines = [f"# Chosen on dev: {a.run_dir}", "",
             f"Dev: {a.dev}/dev.{a.src} → dev.{a.tgt} ({len(src_lines)} sentences), softalign int8 "
             f"(no shortlist, no copy-through), sacrebleu defaults.", "",
             "| weights | snapshots | greedy BLEU | chrF2 |", "|---|---|---:|---:|"]
    lines += [f"| {n} | {st} | {s['bleu']:.2f} | {s['chrf']:.2f} |" for n, st, s in rows]
    lines += ["", f"Search for \"{best[0]}\", beam {a.beam}:", "",
              "| alpha | beta | BLEU | chrF2 |", "|---:|---:|---:|---:|"]
    lines += [f"| {al} | {be} | {s['bleu']:.2f} | {s['chrf']:.2f} |" for al, be, s in grid_rows]
    lines += ["", f"Chosen: {best[0]}, beam {a.beam}, alpha {chosen[0]}, beta {chosen[1]} "
              f"(dev BLEU {chosen[2]['bleu']:.2f}).", "",
              "    " + " ".join([".venv/bin/python", "models/choose_on_dev.py", a.run_dir, "--dev", a.dev,
                                 "--src", a.src, "--tgt", a.tgt, "--out", a.out, "--averages", a.averages,
                                 "--grid", a.grid, "--beam", str(a.beam)]
                                + (["--start", a.start, "--start-shares", a.start_shares] if a.start else [])), ""]
    with open(os.path.join(a.out, "choice.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

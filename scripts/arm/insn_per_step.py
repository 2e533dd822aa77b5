#!/usr/bin/env python3
"""Guest instructions per decode step of each kernel set, counted under qemu-user.

  scripts/arm/insn_per_step.py --build build-aarch64 --sysroot build-aarch64-sysroot \
      [--qemu qemu-aarch64] [--cpu max] [--sets ref,neon,neon_dot]

For each shipped model (models/*/*.softalign) the CLI translates the sentences of
tests/models/<pair>.sources.txt greedily (--threads 1) under qemu with the
qemu_insn_count plugin (scripts/arm/qemu_insn_count.c, built here into the build
directory), once per kernel set, and once with no input (load and prepare only). The
difference, divided by the decode steps (target pieces + 1 for the end of sentence, from
the reference run's --json output), is the instructions per step, the encoder's share
included; each count is the minimum of --repeat runs. Step time is not measurable under
qemu: this is the stand-in.
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# --batch 1: one sentence at a time, as an app on a phone translates (the CLI decodes greedy batches together).
GREEDY = ["--beam", "1", "--max-len-a", "1.5", "--max-len-b", "10", "--threads", "1", "--batch", "1"]


def count(args, cli, model, kernels, text, extra=()):
    cmd = [args.qemu, "-cpu", args.cpu, "-plugin", args.plugin, "-L", args.sysroot, cli, "translate",
           "-m", model, "--kernels", kernels, *GREEDY, *extra]
    p = subprocess.run(cmd, input=text, capture_output=True, text=True, encoding="utf-8")
    m = re.search(r"^insns: (\d+)$", p.stderr, re.M)
    if p.returncode != 0 or not m:
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    return int(m.group(1)), p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--sysroot", required=True)
    ap.add_argument("--qemu", default="qemu-aarch64")
    ap.add_argument("--cpu", default="max")
    ap.add_argument("--sets", default="ref,neon,neon_dot")
    ap.add_argument("--repeat", type=int, default=3, help="runs per count; the minimum is kept")
    ap.add_argument("--model", action="append", default=[], metavar="PAIR=FILE",
                    help="also count FILE on PAIR's sources, e.g. a candidate beside the shipped file")
    args = ap.parse_args()
    args.plugin = os.path.join(os.path.abspath(args.build), "qemu_insn_count.so")
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", args.plugin,
                    os.path.join(ROOT, "scripts", "arm", "qemu_insn_count.c")], check=True)
    cli = os.path.join(args.build, "bin", "softalign")
    sets = args.sets.split(",")
    models = sorted((pair, os.path.join(ROOT, "models", pair, f))
                    for pair in os.listdir(os.path.join(ROOT, "models"))
                    if os.path.isdir(os.path.join(ROOT, "models", pair))
                    for f in os.listdir(os.path.join(ROOT, "models", pair)) if f.endswith(".softalign"))
    for spec in args.model:
        pair, sep, path = spec.partition("=")
        if not sep or not os.path.isfile(path):
            ap.error(f"--model {spec}: want PAIR=FILE with an existing file")
        models.append((pair, os.path.abspath(path)))
    print(f"{'model':<22} {'set':<9} {'steps':>6} {'insns/step':>12} {'vs ref':>7}")
    for pair, model in models:
        with open(os.path.join(ROOT, "tests", "models", f"{pair}.sources.txt"), encoding="utf-8") as f:
            sources = [s.rstrip("\n") for s in f if s.strip() and not s.startswith("#")]
        text = "".join(s + "\n" for s in sources)
        _, out = count(args, cli, model, "ref", text, ["--json"])
        steps = sum(len(json.loads(line)["hypotheses"][0]["pieces"]) + 1 for line in out.splitlines())
        per = {}
        for kernels in sets:
            # The minimum of a few runs: threads that wait by spinning (the
            # tokenizer thread at load, a thread pool) add a varying count.
            base = min(count(args, cli, model, kernels, "")[0] for _ in range(args.repeat))
            total = min(count(args, cli, model, kernels, text)[0] for _ in range(args.repeat))
            per[kernels] = (total - base) / steps
            ratio = per[kernels] / per[sets[0]]
            print(f"{os.path.basename(model):<22} {kernels:<9} {steps:>6} {per[kernels]:>12,.0f} {ratio:>7.2f}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

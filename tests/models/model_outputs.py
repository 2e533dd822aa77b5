#!/usr/bin/env python3
"""Exact outputs of every shipped model (models/*/*.softalign), greedy and beam 4.

  model_outputs.py check --cli SOFTALIGN --kernels SET [--device DEVICE] [--root REPO]
  model_outputs.py regenerate --cli SOFTALIGN [--root REPO] [MODEL ...]

For a model models/<pair>/<name>.softalign the sentences are tests/models/<pair>.sources.txt
(one per line; lines starting with '#' and blank lines are skipped) and the expected outputs
tests/models/<name>.expected.tsv: '#' comment lines, then one line per sentence,
SOURCE<TAB>GREEDY<TAB>BEAM4 (the `softalign translate` output with SEARCH below).

check: translates the sentences with the kernel set SET (`--kernels SET`) and compares
every output byte for byte; exit 0 when all match, 1 otherwise (each difference printed),
77 when this CPU lacks SET (ctest counts it as skipped). A shipped model without an
expected file fails: run regenerate. --device vulkan checks the Vulkan engine against the
same expected outputs (`softalign translate --device vulkan`).

regenerate: writes the expected files from the reference kernels (`--kernels ref`), after
checking that every other kernel set this CPU has gives the same outputs; when one does
not, nothing is written and the sentences that differ are listed (exit 1): pick others.
"""
import argparse
import os
import shlex
import subprocess
import sys

KERNEL_SETS = ("ref", "avx2", "avx512", "neon", "neon_dot")
# The search, given in full so the expected outputs do not depend on a model's stored defaults.
SEARCH = {
    "greedy": ["--beam", "1", "--max-len-a", "1.5", "--max-len-b", "10"],
    "beam4": ["--beam", "4", "--alpha", "0.6", "--beta", "0", "--max-len-a", "1.5", "--max-len-b", "10"],
}
UNSUPPORTED = "unknown or unsupported kernel set"


class Failure(Exception):
    pass


def here(root):
    return os.path.join(root, "tests", "models")


def shipped_models(root):
    base = os.path.join(root, "models")
    found = []
    for pair in sorted(os.listdir(base)):
        d = os.path.join(base, pair)
        if os.path.isdir(d):
            found += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".softalign")]
    return found


def names(model):
    """models/en-fr/en-fr.int8.softalign -> ('en-fr', 'en-fr.int8')."""
    return os.path.basename(os.path.dirname(model)), os.path.basename(model)[: -len(".softalign")]


def read_sources(root, pair):
    path = os.path.join(here(root), f"{pair}.sources.txt")
    if not os.path.exists(path):
        raise Failure(f"no sentences for {pair}: write tests/models/{pair}.sources.txt (one per line)")
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]
    sources = [s for s in lines if s.strip() and not s.startswith("#")]
    for s in sources:
        if "\t" in s or "\r" in s:
            raise Failure(f"tests/models/{pair}.sources.txt: a tab or CR in {s!r}")
    if not sources:
        raise Failure(f"tests/models/{pair}.sources.txt has no sentences")
    return sources


def read_expected(root, name):
    path = os.path.join(here(root), f"{name}.expected.tsv")
    if not os.path.exists(path):
        return None
    rows = []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 3:
                raise Failure(f"tests/models/{name}.expected.tsv line {no}: {len(fields)} fields, "
                              "expected SOURCE<TAB>GREEDY<TAB>BEAM4")
            rows.append(fields)
    return rows


def translate(cli, model, kernels, sources, search, emulator="", device=None):
    """The outputs of one search, one per source; None when this CPU lacks the kernel set."""
    args = [*shlex.split(emulator), cli, "translate", "-m", model, "--kernels", kernels, *SEARCH[search]]
    if device:
        args += ["--device", device]
    p = subprocess.run(args, input="".join(s + "\n" for s in sources), capture_output=True, text=True,
                       encoding="utf-8", timeout=600)
    if p.returncode != 0 and UNSUPPORTED in p.stderr:
        return None
    if p.returncode != 0 or p.stderr:
        raise Failure(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    out = p.stdout.split("\n")
    if out[-1] != "" or len(out) - 1 != len(sources):
        raise Failure(f"{' '.join(args)}: {len(out) - 1} output lines for {len(sources)} sentences")
    return out[:-1]


def rel(root, path):
    return os.path.relpath(path, root)


def check(args):
    models = shipped_models(args.root)
    if not models:
        print("no shipped model under models/: nothing to check")
        return 0
    failures = 0
    device_note = f" --device {args.device}" if args.device else ""
    for model in models:
        pair, name = names(model)
        expected = read_expected(args.root, name)
        if expected is None:
            raise Failure(f"no expected outputs for {rel(args.root, model)}: run tests/models/regenerate.sh "
                          f"(it writes tests/models/{name}.expected.tsv)")
        sources = read_sources(args.root, pair)
        if [r[0] for r in expected] != sources:
            raise Failure(f"tests/models/{name}.expected.tsv is not for the sentences of "
                          f"tests/models/{pair}.sources.txt: run tests/models/regenerate.sh")
        for col, search in enumerate(SEARCH, 1):
            got = translate(args.cli, model, args.kernels, sources, search, args.emulator, args.device)
            if got is None:
                print(f"kernel set {args.kernels!r} is not available on this CPU: skipped")
                return 77
            bad = [(s, r[col], g) for s, r, g in zip(sources, expected, got) if r[col] != g]
            for s, want, g in bad:
                print(f"{rel(args.root, model)} --kernels {args.kernels}{device_note} {search}: {s!r}\n"
                      f"  expected {want!r}\n  got      {g!r}")
            failures += len(bad)
            print(f"{rel(args.root, model)} --kernels {args.kernels}{device_note} {search}: "
                  f"{len(sources) - len(bad)}/{len(sources)} exact")
    return 1 if failures else 0


def regenerate(args):
    models = [os.path.abspath(m) for m in args.models] or shipped_models(args.root)
    if not models:
        print("no shipped model under models/")
        return 1
    status = 0
    for model in models:
        pair, name = names(model)
        sources = read_sources(args.root, pair)
        outputs = {search: translate(args.cli, model, "ref", sources, search) for search in SEARCH}
        differ = []
        checked = []
        for kernels in KERNEL_SETS[1:]:
            for search in SEARCH:
                got = translate(args.cli, model, kernels, sources, search)
                if got is None:
                    break
                differ += [(kernels, search, s, w, g)
                           for s, w, g in zip(sources, outputs[search], got) if w != g]
            else:
                checked.append(kernels)
        if differ:
            print(f"{rel(args.root, model)}: the kernel sets disagree, nothing written; "
                  f"choose other sentences in tests/models/{pair}.sources.txt:")
            for kernels, search, s, w, g in differ:
                print(f"  {search} {s!r}\n    ref:      {w!r}\n    {kernels + ':':9} {g!r}")
            status = 1
            continue
        path = os.path.join(here(args.root), f"{name}.expected.tsv")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(f"# Exact outputs of models/{pair}/{name}.softalign (written by tests/models/regenerate.sh "
                    "with --kernels ref; the same with: "
                    f"{', '.join(checked) if checked else 'no other set on that CPU'}).\n")
            for search, opts in SEARCH.items():
                f.write(f"# {search}: softalign translate {' '.join(opts)}\n")
            f.write("# source\tgreedy\tbeam4\n")
            for row in zip(sources, outputs["greedy"], outputs["beam4"]):
                f.write("\t".join(row) + "\n")
        print(f"wrote {rel(args.root, path)} ({len(sources)} sentences; ref"
              f"{''.join(', ' + k for k in checked)} agree)")
    return status


def main():
    default_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check")
    c.add_argument("--cli", required=True, help="the softalign program")
    c.add_argument("--kernels", required=True, choices=KERNEL_SETS)
    c.add_argument("--device", choices=["auto", "cpu", "vulkan"], help="the CLI's --device (default: not given)")
    c.add_argument("--emulator", default="", help="a command the CLI runs under (cross builds: qemu-aarch64 -L SYSROOT)")
    c.add_argument("--root", default=default_root, help="the repository (default: this file's)")
    r = sub.add_parser("regenerate")
    r.add_argument("--cli", required=True, help="the softalign program")
    r.add_argument("--root", default=default_root, help="the repository (default: this file's)")
    r.add_argument("models", nargs="*", help="model files (default: every models/*/*.softalign)")
    args = ap.parse_args()
    try:
        return check(args) if args.command == "check" else regenerate(args)
    except Failure as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

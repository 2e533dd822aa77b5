#!/usr/bin/env python3
"""The Vulkan engine against an older build of it, in one run.

  vulkan_speedup.py --baseline-build DIR [--build-dir build] [--model FILE]
                    [--sentences 200] [--batch 32] [--beam 1] [--rounds 2] [--encoder]

Translates the first --sentences lines of DDTP test with `softalign translate
--device vulkan` from both builds (each in its own process, the builds
alternated --rounds times; the best wall time of each counts) and prints the
times and their ratio, and whether the outputs are the same as each other and
as the CPU engine's. On a CPU Vulkan device (lavapipe) the time is a proxy for
what the engine dispatches and reads, not for a GPU's speed. Nothing here
fails on a timing. --encoder stops each sentence after one decoder step, so
that the time is mostly the encoder's.
"""
import argparse
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def translate(cli, model, source, out, device, batch, beam, extra=()):
    cmd = [str(cli), "translate", "-m", str(model), "--device", device, "--batch", str(batch), "--beam", str(beam),
           *extra]
    start = time.perf_counter()
    with open(source, "rb") as src, open(out, "wb") as dst:
        done = subprocess.run(cmd, stdin=src, stdout=dst, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{cli} failed: {done.stderr.decode(errors='replace').strip()}")
    return seconds


def device_name(cli, model):
    done = subprocess.run([str(cli), "translate", "-m", str(model), "--device", "vulkan", "--verbose"], input=b"Hello\n",
                          capture_output=True)
    lines = [l for l in done.stderr.decode(errors="replace").splitlines() if "vulkan" in l.lower()]
    return lines[0].strip() if lines else "(no Vulkan line in --verbose)"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline-build", required=True, type=pathlib.Path)
    ap.add_argument("--build-dir", default=ROOT / "build", type=pathlib.Path)
    ap.add_argument("--model", default=ROOT / "models/en-fr/en-fr.int8.softalign", type=pathlib.Path)
    ap.add_argument("--data", default=ROOT.parent / "shared/data/ddtp/en-fr/test.en", type=pathlib.Path)
    ap.add_argument("--sentences", type=int, default=200)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--beam", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--encoder", action="store_true",
                    help="one decoder step a sentence (--max-len-a 0 --max-len-b 1): the time is mostly the encoder's")
    args = ap.parse_args()
    extra = ("--max-len-a", "0", "--max-len-b", "1") if args.encoder else ()
    new_cli, old_cli = args.build_dir / "bin/softalign", args.baseline_build / "bin/softalign"
    for cli in (new_cli, old_cli):
        if not cli.exists():
            sys.exit(f"no {cli}: build it first (ninja -C <build> softalign_cli)")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        source = tmp / "source.en"
        lines = args.data.read_text(encoding="utf-8").splitlines()[: args.sentences]
        source.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{len(lines)} sentences of {args.data.name}, --batch {args.batch} --beam {args.beam}"
              f"{' (one decoder step each)' if args.encoder else ''}, "
              f"{args.model.name}; device: {device_name(new_cli, args.model)}")
        # A first untimed run of each on one line: the driver compiles (and
        # caches) its pipelines at prepare.
        (tmp / "one.en").write_text(lines[0] + "\n", encoding="utf-8")
        for cli in (new_cli, old_cli):
            translate(cli, args.model, tmp / "one.en", tmp / "one.txt", "vulkan", args.batch, args.beam, extra)
        best = {"new": float("inf"), "old": float("inf")}
        for r in range(args.rounds):
            for name, cli in (("old", old_cli), ("new", new_cli)):
                s = translate(cli, args.model, source, tmp / f"{name}.txt", "vulkan", args.batch, args.beam, extra)
                best[name] = min(best[name], s)
                print(f"  round {r + 1} {name}: {s:.2f} s")
        cpu = translate(new_cli, args.model, source, tmp / "cpu.txt", "cpu", args.batch, args.beam, extra)
        new_out, old_out, cpu_out = ((tmp / f"{n}.txt").read_bytes() for n in ("new", "old", "cpu"))
        print(f"vulkan, this build:     {best['new']:8.2f} s")
        print(f"vulkan, baseline build: {best['old']:8.2f} s")
        print(f"baseline / this build:  {best['old'] / best['new']:8.2f}x")
        print(f"cpu engine (this build, for scale): {cpu:.2f} s")
        print(f"outputs: this build {'==' if new_out == old_out else '!='} baseline, "
              f"this build {'==' if new_out == cpu_out else '!='} CPU engine")


if __name__ == "__main__":
    main()

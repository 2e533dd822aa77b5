#!/usr/bin/env python3
"""What a decoder step costs the Vulkan engine, counted (never timed).

  vulkan_step_counts.py BENCH MODEL SOURCES

Runs softalign_bench --device vulkan (lavapipe in CI) on a few sentences,
greedy and beam 4, and checks the counts it reports for the steps recorded at
prepare: at most 8 dispatches, no more barriers than dispatches, and the
weight bytes it reads, both for the step whose candidates the host reads and
for a greedy step that chooses on the device (several a submission); and the
encoder's: a few dispatches a layer (at most 12 in all for the shipped
model's), whatever the sources' lengths, not one a position.
"""
import json
import subprocess
import sys


def main():
    bench, model, sources = sys.argv[1:4]
    failed = False
    for batch, beam in ((1, 1), (3, 1), (2, 4)):
        out = subprocess.run([bench, "--model", model, "--input", sources, "--sentences", "4", "--batch", str(batch),
                              "--beam", str(beam), "--device", "vulkan"],
                             capture_output=True, text=True, timeout=900)
        if out.returncode != 0:
            print(f"softalign_bench failed: {out.stderr.strip()}")
            return 1
        r = json.loads(out.stdout)
        d, b, mib = r["step_dispatches"], r["step_barriers"], r["step_weight_mib"]
        gd, gb, gs = r["greedy_step_dispatches"], r["greedy_step_barriers"], r["greedy_steps_per_submit"]
        ed, eb = r["encoder_dispatches"], r["encoder_barriers"]
        ok = (r["backend"] == "vulkan" and 0 < d <= 8 and b <= d and mib > 0 and 0 < gd <= 8 and gb <= gd and gs > 1
              and 0 < ed <= 12)
        failed |= not ok
        print(f"{'ok  ' if ok else 'FAIL'} batch {batch} beam {beam}: {d} dispatches, {b} barriers, "
              f"{mib:.2f} MiB of weights a step on {r['device']}; greedy on the device: {gd} dispatches, "
              f"{gb} barriers a step, up to {gs} steps a submission; the encoder: {ed} dispatches, {eb} barriers")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

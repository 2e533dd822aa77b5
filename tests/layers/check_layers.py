#!/usr/bin/env python3
"""The runtime's layers (runtime/README.md, "Layers"): each folder of
runtime/src may include its own folder and the folders below it, never one
above. Lists every include that crosses folders, and fails on one that points
up, or at a sibling. backends/vulkan sits above backends/cpu: an operation
the Vulkan engine does not support runs on the host with the CPU's
implementation of that op (its per-op fallback); the CPU backend knows no
other backend.

    python3 tests/layers/check_layers.py [--list]

UPWARD_TODAY lists arrows allowed to point up for now (none): an arrow not
in it fails, and so does a listed arrow that no longer exists (the list only
shrinks).
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "src")
# Top first. kernels/ (runtime/kernels) and the public headers (softalign/)
# sit below every layer; the schema's generated headers too.
# backends/ itself holds the engine interface the backends implement: below them.
RANK = {"api": 0, "text": 1, "search": 2, "model": 3, "backends/vulkan": 4, "backends/cpu": 5, "backends": 6, "core": 7}
LAYERS = list(RANK)
BELOW_ALL = ("kernels/", "softalign/", "softalign_")

# (including file's layer, included header): the arrows up that remain today.
UPWARD_TODAY = set()  # none since the op interface (backends/ops.hpp)


def layer_of(path):
    """The layer of a path relative to runtime/src (the longest folder match)."""
    best = None
    for layer in LAYERS:
        if path == layer or path.startswith(layer + "/"):
            if best is None or len(layer) > len(best):
                best = layer
    return best


def arrows():
    """(file, its layer, included header, that header's layer) for every include of a layer's header."""
    out = []
    for d, _, files in os.walk(ROOT):
        for f in sorted(files):
            if not f.endswith((".cpp", ".hpp")):
                continue
            rel = os.path.relpath(os.path.join(d, f), ROOT)
            src_layer = layer_of(rel)
            if src_layer is None:
                sys.exit(f"check_layers: {rel} is in no layer: add its folder to LAYERS")
            with open(os.path.join(d, f), encoding="utf-8") as fh:
                for inc in re.findall(r'^#include "([^"]+)"', fh.read(), re.M):
                    if inc.startswith(BELOW_ALL):
                        continue
                    dst_layer = layer_of(inc)
                    if dst_layer is None:
                        sys.exit(f"check_layers: {rel} includes \"{inc}\", which is in no layer "
                                 f"(includes name their folder: \"text/protect.hpp\")")
                    out.append((rel, src_layer, inc, dst_layer))
    return out


def main():
    found = arrows()
    bad, used = [], set()
    for rel, src, inc, dst in found:
        up = RANK[dst] < RANK[src]
        sibling = RANK[dst] == RANK[src] and dst != src
        if up or sibling:
            if (src, inc) in UPWARD_TODAY:
                used.add((src, inc))
            else:
                bad.append(f"{rel} ({src}) includes {inc} ({dst}): {'up' if up else 'a sibling'}")
    if "--list" in sys.argv:
        for rel, src, inc, dst in found:
            if src != dst:
                print(f"{src:16s} -> {dst:16s} {rel} includes {inc}")
    stale = sorted(UPWARD_TODAY - used)
    for s in stale:
        bad.append(f"UPWARD_TODAY lists {s[0]} -> {s[1]}, which no longer exists: remove it from the list")
    crossing = sum(1 for _, s, _, d in found if s != d)
    print(f"check_layers: {len(found)} includes of the layers' headers, {crossing} across folders, "
          f"{len(used)} known arrows up (UPWARD_TODAY), {len(bad)} problems")
    for b in bad:
        print("  " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

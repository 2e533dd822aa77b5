#!/usr/bin/env python3
"""Inspect or re-export softalign weights (safetensors + JSON config, WEIGHTS_FORMAT.md).

  python3 models/export.py inspect MODEL_DIR_OR_FILE     config, metadata, tensor table; checks it loads
  python3 models/export.py fp16 IN.safetensors OUT.safetensors   the same weights in float16

The trainer exports OUT/model/model.safetensors itself; this tool checks a model
directory before conversion and makes the smaller fp16 copy that is shipped.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
from safetensors import safe_open  # noqa: E402

from softalign_ref import export  # noqa: E402
from softalign_ref.config import ModelConfig  # noqa: E402


def weights_path(p):
    return os.path.join(p, "model.safetensors") if os.path.isdir(p) else p


def inspect(path):
    wp = weights_path(path)
    meta = export.read_metadata(wp)
    model, cfg = export.load(wp)  # checks names, shapes and dtypes against the config
    fields = set(cfg.to_dict())
    print("config:")
    for k, v in cfg.to_dict().items():
        print(f"  {k} = {json.dumps(v)}")
    extra = {k: v for k, v in meta.items() if k not in fields}
    if extra:
        print("metadata:")
        for k, v in extra.items():
            print(f"  {k} = {json.dumps(v)}")
    print("tensors:")
    total = 0
    with safe_open(wp, framework="pt") as f:
        for k in f.keys():
            t = f.get_tensor(k)
            total += t.numel() * t.element_size()
            print(f"  {k:40s} {str(list(t.shape)):14s} {str(t.dtype).replace('torch.', ''):8s}")
    print(f"{sum(p.numel() for p in model.parameters())} parameters, {total} bytes of weights")
    if os.path.isdir(path):
        for p in export.spm_paths(path, cfg.shared_vocab):
            print(f"{os.path.basename(p)}: {'ok' if os.path.isfile(p) else 'MISSING'}")
            if not os.path.isfile(p):
                return 1
    return 0


def to_fp16(src, dst):
    wp = weights_path(src)
    meta = export.read_metadata(wp)
    model, cfg = export.load(wp)
    extra = {k: v for k, v in meta.items() if k not in set(ModelConfig.__dataclass_fields__)}
    export.save(model, cfg, dst, extra, dtype=torch.float16)
    print(f"wrote {dst} ({os.path.getsize(dst)} bytes)")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("inspect", help="print config, metadata and tensors; check the file loads")
    p.add_argument("path", help="model directory or .safetensors file")
    p = sub.add_parser("fp16", help="write the weights in float16")
    p.add_argument("src")
    p.add_argument("dst")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "inspect":
            return inspect(args.path)
        return to_fp16(args.src, args.dst)
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

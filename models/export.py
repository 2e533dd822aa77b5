#!/usr/bin/env python3
"""Inspect or re-export softalign weights (safetensors + JSON config, WEIGHTS_FORMAT.md).

  python3 models/export.py inspect MODEL_DIR_OR_FILE     config, metadata, tensor table; checks it loads
  python3 models/export.py fp16 IN.safetensors OUT.safetensors   the same weights in float16
  python3 models/export.py average OUT_DIR --like MODEL_DIR [--decoding KEY=VALUE] [--weights W,...] INPUT...
        the mean (or, with --weights, a weighted mean) of several snapshots of one
        training run or of a run and the weights it started from (trainer checkpoints
        OUT/checkpoint.pt copies, model directories or .safetensors files) as a model
        directory: float32 weights, MODEL_DIR's config and tokenizers, and the
        training_state.json of the last input (so --warm-start and ship.sh take it);
        --decoding sets the model's default search (beam, alpha, beta, max_len_a,
        max_len_b, nbest), e.g. as chosen on dev

The trainer exports OUT/model/model.safetensors itself; this tool checks a model
directory before conversion and makes the smaller fp16 copy that is shipped.
"""
import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
from safetensors import safe_open  # noqa: E402

from softalign_ref import export  # noqa: E402
from softalign_ref.config import default_decoding  # noqa: E402


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
    extra = {k: v for k, v in meta.items() if k not in export.CONFIG_FIELDS}
    export.save(model, cfg, dst, extra, dtype=torch.float16)
    print(f"wrote {dst} ({os.path.getsize(dst)} bytes)")
    return 0


def snapshot_weights(path):
    """(state_dict, training state or None) of a trainer checkpoint, model dir or .safetensors."""
    if path.endswith(".pt"):
        if not os.path.isfile(path):
            raise FileNotFoundError(f"checkpoint not found: {path}")
        ck = torch.load(path, map_location="cpu")
        if not isinstance(ck, dict) or "model" not in ck:
            raise ValueError(f"{path}: not a trainer checkpoint (no 'model')")
        return ck["model"], ck.get("state")
    wp = weights_path(path)
    model, _ = export.load(wp)
    state_path = os.path.join(os.path.dirname(wp), "training_state.json")
    state = json.load(open(state_path, encoding="utf-8")) if os.path.isfile(state_path) else None
    return model.state_dict(), state


def parse_decoding(items):
    """KEY=VALUE strings -> the config's decoding options, typed as their defaults."""
    defaults, out = default_decoding(), {}
    for item in items or ():
        key, sep, val = item.partition("=")
        if not sep or key not in defaults:
            raise ValueError(f"--decoding takes {'|'.join(defaults)}=VALUE, got {item!r}")
        try:
            out[key] = type(defaults[key])(val)
        except ValueError:
            raise ValueError(f"--decoding {key}: not a number: {val!r}") from None
    return out


def parse_weights(text, n):
    """--weights W1,W2,...: one positive number per input (average() divides by their sum)."""
    try:
        ws = [float(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"--weights: not numbers: {text!r}") from None
    if len(ws) != n:
        raise ValueError(f"--weights: {len(ws)} weights for {n} inputs")
    if not all(w > 0 and w < float("inf") for w in ws):
        raise ValueError(f"--weights: each weight must be a positive number, got {text!r}")
    return ws


def average(out_dir, like, inputs, decoding=None, weights=None):
    """Writes the element-wise mean of the inputs' weights (summed in float64) to out_dir.

    weights: one positive share per input, divided by their sum; None is the plain mean. A share below 1 on
    the weights a fine-tuning run started from keeps part of what they knew (weight-space
    interpolation; Wortsman et al. 2022, "Robust fine-tuning of zero-shot models").
    """
    raw = parse_weights(weights, len(inputs)) if weights else [1.0] * len(inputs)
    weight_sum = sum(raw)
    like_wp = weights_path(like)
    meta = export.read_metadata(like_wp)
    model, cfg = export.load(like_wp)
    cfg.decoding.update(parse_decoding(decoding))
    cfg.validate()
    ref = model.state_dict()
    total = {k: torch.zeros(v.shape, dtype=torch.float64) for k, v in ref.items()}
    states = []
    for path, w in zip(inputs, raw):
        sd, state = snapshot_weights(path)
        if set(sd) != set(ref):
            raise ValueError(f"{path}: its tensors differ from {like_wp}'s")
        for k, v in sd.items():
            if tuple(v.shape) != tuple(ref[k].shape):
                raise ValueError(f"{path}: tensor {k} has shape {tuple(v.shape)}, expected {tuple(ref[k].shape)}")
            total[k] += w * v.to(torch.float64)
        states.append(state)
    model.load_state_dict({k: (v / weight_sum).to(torch.float32) for k, v in total.items()})
    extra = {k: v for k, v in meta.items() if k not in export.CONFIG_FIELDS}
    steps = [s.get("step") if s else None for s in states]
    extra["averaged"] = {"inputs": [os.path.basename(os.path.normpath(p)) for p in inputs], "steps": steps}
    if weights:
        extra["averaged"]["weights"] = [round(w / weight_sum, 6) for w in raw]
    if steps[-1] is not None:
        extra["step"] = steps[-1]
    os.makedirs(out_dir, exist_ok=True)
    export.save(model, cfg, os.path.join(out_dir, "model.safetensors"), extra)
    for p in export.spm_paths(os.path.dirname(like_wp), cfg.shared_vocab):
        if not os.path.isfile(p):
            raise FileNotFoundError(f"tokenizer not found: {p}")
        shutil.copy(p, out_dir)
    if states[-1] is not None:
        with open(os.path.join(out_dir, "training_state.json"), "w", encoding="utf-8") as f:
            json.dump(states[-1], f, indent=1)
            f.write("\n")
    how = f"weights {', '.join(f'{w / weight_sum:.3g}' for w in raw)}" if weights else "the plain mean"
    print(f"wrote {out_dir}: the mean of {len(inputs)} snapshots (steps {steps}; {how})")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("inspect", help="print config, metadata and tensors; check the file loads")
    p.add_argument("path", help="model directory or .safetensors file")
    p = sub.add_parser("fp16", help="write the weights in float16")
    p.add_argument("src")
    p.add_argument("dst")
    p = sub.add_parser("average", help="average snapshots of one run into a model directory")
    p.add_argument("out_dir")
    p.add_argument("--like", required=True, help="model directory whose config and tokenizers the output takes")
    p.add_argument("--decoding", action="append", metavar="KEY=VALUE",
                   help="the output's default search option (repeatable), e.g. alpha=1.0")
    p.add_argument("--weights", metavar="W1,W2,...",
                   help="one positive share per input, normalised (default: the plain mean)")
    p.add_argument("inputs", nargs="+", help="trainer checkpoints (.pt), model directories or .safetensors files")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "inspect":
            return inspect(args.path)
        if args.cmd == "average":
            return average(args.out_dir, args.like, args.inputs, args.decoding, args.weights)
        return to_fp16(args.src, args.dst)
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

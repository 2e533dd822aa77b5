"""Cross-check of converted files with independent readers.

Each golden model's weights are read with the `safetensors` library, converted
by softalign-convert (f32, f16, int8), and the .softalign file is read with
FlatBuffers' Python runtime through code flatc generates from the schema (not
the C++ reader). Checks: every tensor present with its shape; f32 equal bit for
bit; f16 within half an fp16 ulp; int8 scales = max|row|/127 (1 for zero
rows) and error <= scale/2; data 32-byte aligned; config and SentencePiece
bytes as in the input.

usage: crosscheck.py CONVERTER GENERATED_PY_DIR GOLDEN_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"))
from softalign_ref import deps  # noqa: E402  (a missing module below fails with one line)

import numpy as np  # noqa: E402
from safetensors.numpy import load_file  # noqa: E402
from safetensors import safe_open  # noqa: E402


def main():
    converter, py_dir, golden_dir = sys.argv[1:4]
    sys.path.insert(0, py_dir)
    from softalign.fb.Model import Model
    from softalign.fb.DType import DType

    names = sorted(d for d in os.listdir(golden_dir) if os.path.isfile(os.path.join(golden_dir, d, "model.safetensors")))
    if not names:
        print("no golden models; nothing to check")
        return 0
    failures = 0
    for name in names:
        src = os.path.join(golden_dir, name, "model.safetensors")
        weights = {k: v.astype(np.float32) for k, v in load_file(src).items()}
        with safe_open(src, framework="numpy") as f:
            config = json.loads(f.metadata()["config"])
        for mode, flag in (("f32", []), ("f16", ["--fp16"]), ("int8", ["--int8"])):
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "m.softalign")
                subprocess.run([converter, *flag, src, "-o", out], check=True)
                buf = bytearray(open(out, "rb").read())
            errors = check(Model.GetRootAs(buf, 0), buf, weights, config, mode, DType, golden_dir, name)
            for e in errors:
                print(f"{name} {mode}: {e}")
            failures += len(errors)
            print(f"{name} {mode}: {len(weights)} tensors {'ok' if not errors else 'FAILED'}")
    return 1 if failures else 0


def check(m, buf, weights, config, mode, DType, golden_dir, name):
    errors = []
    if bytes(buf[4:8]) != b"SALN":
        errors.append("file identifier")
    c = m.Config()
    for key, got in (("enc_layers", c.EncLayers()), ("dec_layers", c.DecLayers()), ("emb_size", c.EmbSize()),
                     ("enc_hidden", c.EncHidden()), ("dec_hidden", c.DecHidden()), ("src_vocab", c.SrcVocab()),
                     ("tgt_vocab", c.TgtVocab()), ("max_src_len", c.MaxSrcLen()), ("eos_id", c.EosId())):
        if got != config[key]:
            errors.append(f"config {key}: {got} != {config[key]}")
    spm = "spm.model" if config["shared_vocab"] else "src.spm.model"
    if m.SrcSpmAsNumpy().tobytes() != open(os.path.join(golden_dir, name, spm), "rb").read():
        errors.append("source SentencePiece bytes differ")
    if m.TensorsLength() != len(weights):
        errors.append(f"{m.TensorsLength()} tensors, input has {len(weights)}")
    for i in range(m.TensorsLength()):
        t = m.Tensors(i)
        tname = t.Name().decode()
        if tname not in weights:
            errors.append(f"unexpected tensor {tname}")
            continue
        x = weights[tname]
        shape = tuple(int(d) for d in t.ShapeAsNumpy())
        if shape != x.shape:
            errors.append(f"{tname}: shape {shape} != {x.shape}")
            continue
        raw = t.DataAsNumpy()
        start = t._tab.Vector(t._tab.Offset(12))  # field `data` (vtable slot 12): byte position of its first element
        if start % 32:
            errors.append(f"{tname}: data at byte {start}, not 32-aligned")
        dtype = t.Dtype()
        quantised = mode != "f32" and x.ndim == 2
        if not quantised:
            if dtype != DType.F32 or raw.view("<f4").reshape(x.shape).tobytes() != x.tobytes():
                errors.append(f"{tname}: f32 data differs from the input")
        elif mode == "f16":
            h = raw.view("<f2").astype(np.float64).reshape(x.shape)
            e = np.maximum(np.floor(np.log2(np.maximum(np.abs(x.astype(np.float64)), 2.0 ** -14))), -14)
            if dtype != DType.F16 or np.any(np.abs(h - x) > 2.0 ** (e - 10) / 2):
                errors.append(f"{tname}: f16 error above half an ulp")
        else:
            q = raw.view(np.int8).astype(np.float64).reshape(x.shape)
            s = t.ScalesAsNumpy().astype(np.float64)
            amax = np.abs(x).max(axis=1)
            want = np.where(amax == 0, 1.0, (amax / np.float32(127)).astype(np.float32))
            if dtype != DType.I8 or not np.array_equal(s, want.astype(np.float64)):
                errors.append(f"{tname}: int8 scales differ from max|row|/127")
            elif np.any(np.abs(x - s[:, None] * q) > s[:, None] * (0.5 + 1e-5)):
                errors.append(f"{tname}: int8 error above scale/2")
    return errors


if __name__ == "__main__":
    sys.exit(main())

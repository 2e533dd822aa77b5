"""Export and load: safetensors weights with the config as JSON in the metadata.

The file is the converter's input (WEIGHTS_FORMAT.md): every tensor of the
state_dict under its own name (float32 or float16, contiguous), and
`__metadata__["config"]` = the config JSON, plus any extra metadata keys
(corpus, metrics, ...) merged into that JSON object. The config is written as
format_version 1 (without version 2's keys) when every version-2 key has its
default, else as format_version 2 with all of them (ModelConfig.to_dict).
"""
import json
import os

import torch
from safetensors import safe_open
from safetensors.torch import save_file

from .config import ModelConfig
from .model import build_model

CONFIG_FIELDS = set(ModelConfig.__dataclass_fields__)


def save(model, cfg, path, extra_metadata=None, dtype=torch.float32):
    """Writes model's weights and cfg (+ extra_metadata keys) to path (.safetensors).

    dtype: torch.float32 (default) or torch.float16 (half the size; the converter and
    `load` accept both)."""
    if dtype not in (torch.float32, torch.float16):
        raise ValueError(f"dtype must be float32 or float16, got {dtype}")
    cfg.validate()
    meta = cfg.to_dict()
    for k, v in (extra_metadata or {}).items():
        if k in CONFIG_FIELDS:
            raise ValueError(f"extra metadata key {k!r} would overwrite a config key")
        meta[k] = v
    tensors = {k: v.detach().to("cpu", dtype).contiguous().clone()
               for k, v in model.state_dict().items()}
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    save_file(tensors, tmp, metadata={"config": json.dumps(meta, sort_keys=True)})
    os.replace(tmp, path)


def read_metadata(path):
    """The whole metadata JSON object (config keys and extra keys) of a weights file."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"weights file not found: {path}")
    with safe_open(path, framework="pt") as f:
        meta = f.metadata() or {}
    if "config" not in meta:
        raise ValueError(f"{path}: no 'config' in the safetensors metadata")
    try:
        return json.loads(meta["config"])
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: metadata 'config' is not valid JSON: {e}") from None


def load(path, device="cpu"):
    """Loads a weights file → (model in eval mode, cfg). Missing or extra tensors are errors."""
    cfg = ModelConfig.from_dict(read_metadata(path))
    cfg.validate()
    model = build_model(cfg)
    tensors = {}
    with safe_open(path, framework="pt", device=device) as f:
        for k in f.keys():
            tensors[k] = f.get_tensor(k)
    expected = model.state_dict()
    missing = sorted(set(expected) - set(tensors))
    extra = sorted(set(tensors) - set(expected))
    if missing or extra:
        raise ValueError(f"{path}: tensors do not match the {cfg.variant} config: "
                         f"missing {missing}, unexpected {extra}")
    for k, v in tensors.items():
        if v.dtype not in (torch.float32, torch.float16):
            raise ValueError(f"{path}: tensor {k} has dtype {v.dtype}, expected float32 or float16")
        if tuple(v.shape) != tuple(expected[k].shape):
            raise ValueError(f"{path}: tensor {k} has shape {tuple(v.shape)}, expected {tuple(expected[k].shape)}")
    model.load_state_dict({k: v.to(torch.float32) for k, v in tensors.items()})
    model.to(device).eval()
    return model, cfg


def spm_paths(model_dir, shared):
    """The SentencePiece model files of a model directory (WEIGHTS_FORMAT.md)."""
    if shared:
        return [os.path.join(model_dir, "spm.model")]
    return [os.path.join(model_dir, "src.spm.model"), os.path.join(model_dir, "tgt.spm.model")]

"""The trainer: a recipe (YAML) and a corpus folder -> checkpoints and an exported model dir.

Layout of an output folder OUT:
  OUT/recipe.yaml        the recipe as run (after command-line overrides)
  OUT/checkpoint.pt      the latest training state (atomic: written to a temporary, then renamed)
  OUT/model/             the best model so far: model.safetensors + SentencePiece model(s)
                         + training_state.json, the trainer's state when it was exported
  OUT/train.log          plain log lines (evaluations, checkpoints)
  OUT/metrics.jsonl      one JSON object per evaluation

Resume is exact: the checkpoint holds the model, the optimizer, the learning-rate
state, the Python and torch RNG states and the position in the data (epoch,
batch index); batches are a pure function of (seed, epoch), so a run killed and
started again with the same command ends with the same weights as one never
interrupted. Evaluations fork the RNG so they never change the training stream.

A warm start (Trainer(warm_start=MODEL_DIR)) continues a run from an exported or
shipped model folder instead: its weights (float16 or float32) and its
training_state.json (step, epoch, data position, learning rate, best dev figures,
history). It is not exact: Adam's moments start again from zero (so the learning
rate ramps up over training.warm_start_lr_warmup steps) and the RNG from (seed,
step). A full checkpoint is three times the fp32 weights; the shipped fp16
weights with that small JSON are what a repository can afford to keep per update.

Device: Trainer(device="cuda") keeps the model, the optimizer state and each batch
on the GPU (batches are built on the CPU, then moved); checkpoints are loaded onto
the CPU and then copied into the model on the device, so a run can move between
devices; the CUDA RNG state is saved beside the CPU one. Exports and dev BLEU's
search run on the CPU (a copy of the model). `device="cpu"` (the default) runs
the very same code, which is how the path is tested without a GPU. Resume on a GPU
is exact only as far as its kernels are deterministic (cuDNN's GRU backward is not
guaranteed to be).
"""
import copy
import json
import math
import os
import random
import shutil
import sys
import tempfile
import time

import torch
import torch.nn.functional as F
import yaml

from . import data as D
from . import evaluate as E
from .loss import linear_cross_entropy, sample_candidates
from .tokenizer import Tokenizers, PAD_ID, UNK_ID, BOS_ID, EOS_ID

# Written beside an exported model: the trainer's state at that export (warm starts).
STATE_FILE = "training_state.json"

# Every recipe key and its default; a recipe may set any subset.
DEFAULTS = {
    "name": "softalign",
    "model": {
        "variant": "bahdanau", "score": "none", "scope": "global", "window_d": 0,
        "input_feeding": False, "enc_layers": 1, "dec_layers": 1,
        "emb_size": 256, "enc_hidden": 256, "dec_hidden": 256, "att_hidden": 256,
        "maxout_size": 256, "max_src_len": 128, "dropout": 0.3,
    },
    "tokenizer": {"src_vocab": 8000, "tgt_vocab": 8000, "shared": False,
                  "model_type": "unigram", "character_coverage": 1.0},
    # train_max_src_words: keep only training pairs whose source has at most this many
    # whitespace words (Bahdanau et al.'s "-30" models); dev and test are never filtered.
    # repeat_first: [N, K] counts the first N lines of the training files K times an epoch
    # (e.g. DDTP, which comes first in a combined corpus, weighted up against the rest).
    "data": {"max_tgt_len": 160, "train_limit": None, "dev_limit": None, "train_max_src_words": None,
             "repeat_first": None},
    "training": {
        "seed": 1, "threads": 2, "batch_tokens": 3000, "max_sentences": None,
        # fp32, bf16 (the training step's products in bfloat16 under autocast, with fp32
        # weights, optimizer, gates, states and loss) or auto: bf16 where the device
        # multiplies bfloat16 natively (a CPU with AVX512-BF16 or AMX, a CUDA GPU with
        # bf16), else fp32. Dev loss, dev BLEU and exports are always fp32.
        "precision": "fp32",
        "lr": 1.0e-3, "clip_norm": 5.0, "label_smoothing": 0.0,
        "lr_decay": 0.5, "min_lr": 1.0e-5,        # multiply lr on a dev plateau
        # and at the end of each of these steps (a fixed schedule, as Luong et al. halve
        # theirs after epoch 5), e.g. [7000, 8000]
        "lr_decay_steps": [],
        # Also halve (lr_decay) when the training time passes each of these minutes: a
        # schedule for a run bounded by time (--max-minutes) rather than by steps.
        "lr_decay_minutes": [],
        "max_epochs": 30, "max_steps": None, "max_minutes": None,
        "eval_every": 500,                         # steps
        "dev_bleu_sentences": 300,                 # greedy dev BLEU on the first N dev pairs
        "patience": 6,                             # evaluations without a better dev loss
        "checkpoint_minutes": 5.0, "checkpoint_every": None,  # or every N steps
        # keep the weights of the last N evaluations in OUT/snapshots/step-S/ (model.safetensors
        # + training_state.json) for checkpoint averaging (models/export.py average); 0: none
        "keep_snapshots": 0,
        "log_every": 50,
        # after a warm start the learning rate rises linearly from 0 over this many steps:
        # with Adam's moments at zero, full-size first updates knock a trained model back
        # (measured on en-fr at step 5,000: dev loss 2.067 -> 2.126 after 20 steps at 1e-3)
        "warm_start_lr_warmup": 200,
    },
    # block_repeats: the search's repetition blocking (n-grams of up to N pieces), stored in
    # the exported config and so in the converted file's defaults (0: off)
    "decoding": {"beam": 5, "alpha": 0.6, "beta": 0.0, "max_len_a": 1.5, "max_len_b": 10.0, "nbest": 1,
                 "block_repeats": 0},
}


# Keys a recipe may set that DEFAULTS leaves out, so that a recipe without them merges to
# exactly what it merged to before (checkpoints compare recipes on resume): format version
# 2's model keys (WEIGHTS_FORMAT.md; absent = version 1's model) and decoding.beam_rules.
OPTIONAL_KEYS = {
    "model": ("cell", "enc_directions", "reverse_source", "source_eos", "decoder_init", "query_bias",
              "combine_bias", "combine_tanh"),
    "decoding": ("beam_rules",),
    # softmax_candidates: K > 0 trains with a sampled softmax over K output ids a batch
    # (loss.py); absent or 0, the full softmax. softmax_full_after_decay: true goes back to
    # the full softmax once the rate is below training.lr (the first decay on): the fine phase
    "training": ("softmax_candidates", "softmax_full_after_decay"),
}


class RecipeError(ValueError):
    pass


# config keys a warm start's weights may differ in from the recipe: dropout is a training
# setting and decoding the search defaults (not part of the weights)
WARM_START_FREE_KEYS = ("dropout", "decoding")


def merge(base, over, path=""):
    """Recursively merges `over` into a copy of `base`; unknown keys are an error."""
    out = copy.deepcopy(base)
    for k, v in (over or {}).items():
        if k not in base and k in OPTIONAL_KEYS.get(path.rstrip("."), ()):
            out[k] = v
            continue
        if k not in base:
            raise RecipeError(f"unknown recipe key: {path}{k}")
        if isinstance(base[k], dict):
            if not isinstance(v, dict):
                raise RecipeError(f"recipe key {path}{k} must be a mapping")
            out[k] = merge(base[k], v, path + k + ".")
        else:
            out[k] = v
    return out


def load_recipe(path, overrides=()):
    """Reads a YAML recipe, fills defaults, applies `key.sub=value` overrides (YAML values)."""
    if not os.path.isfile(path):
        raise RecipeError(f"recipe not found: {path}")
    with open(path, encoding="utf-8") as f:
        try:
            r = yaml.safe_load(f) or {}
        except yaml.YAMLError as e:
            raise RecipeError(f"{path}: bad YAML: {e}") from None
    if not isinstance(r, dict):
        raise RecipeError(f"{path}: a recipe is a mapping")
    r = merge(DEFAULTS, r)
    for ov in overrides:
        if "=" not in ov:
            raise RecipeError(f"override must be key.sub=value: {ov}")
        key, val = ov.split("=", 1)
        node, parts = r, key.split(".")
        for p in parts[:-1]:
            if p not in node or not isinstance(node[p], dict):
                raise RecipeError(f"unknown recipe key: {key}")
            node = node[p]
        if parts[-1] not in node and not (len(parts) == 2 and parts[-1] in OPTIONAL_KEYS.get(parts[0], ())):
            raise RecipeError(f"unknown recipe key: {key}")
        node[parts[-1]] = yaml.safe_load(val)
    minutes = r["training"]["lr_decay_minutes"]
    if not isinstance(minutes, list) or not all(isinstance(m, (int, float)) and m > 0 for m in minutes):
        raise RecipeError(f"training.lr_decay_minutes must be a list of positive numbers, got {minutes!r}")
    steps = r["training"]["lr_decay_steps"]
    if not isinstance(steps, list) or not all(isinstance(k, int) and not isinstance(k, bool) and k > 0
                                              for k in steps):
        raise RecipeError(f"training.lr_decay_steps must be a list of positive step numbers, got {steps!r}")
    rf = r["data"]["repeat_first"]
    if rf is not None and not (isinstance(rf, list) and len(rf) == 2 and
                               all(isinstance(k, int) and not isinstance(k, bool) and k > 0 for k in rf)):
        raise RecipeError(f"data.repeat_first must be [N, K] with positive integers (the first N pairs "
                          f"K times), got {rf!r}")
    k = r["training"].get("softmax_candidates", 0)
    if not (isinstance(k, int) and not isinstance(k, bool) and k >= 0):
        raise RecipeError(f"training.softmax_candidates must be 0 (the full softmax) or a positive number "
                          f"of output ids, got {k!r}")
    full_after = r["training"].get("softmax_full_after_decay", False)
    if not isinstance(full_after, bool):
        raise RecipeError(f"training.softmax_full_after_decay must be true or false, got {full_after!r}")
    if r["training"]["precision"] not in ("fp32", "bf16", "auto"):
        raise RecipeError(f"training.precision must be fp32, bf16 or auto, got {r['training']['precision']!r}")
    return r


def model_config(recipe, src_lang, tgt_lang):
    """The ModelConfig of a recipe (WEIGHTS_FORMAT.md keys + dropout)."""
    from .config import ModelConfig
    m, t = recipe["model"], recipe["tokenizer"]
    d = dict(m)
    d.update({
        "src_vocab": t["src_vocab"], "tgt_vocab": t["tgt_vocab"], "shared_vocab": bool(t["shared"]),
        "pad_id": PAD_ID, "unk_id": UNK_ID, "bos_id": BOS_ID, "eos_id": EOS_ID,
        "decoding": dict(recipe["decoding"]),
        "src_lang": src_lang, "tgt_lang": tgt_lang, "name": recipe["name"],
    })
    cfg = ModelConfig.from_dict(d)
    cfg.validate()
    return cfg


def set_threads(n):
    """torch's intra-op threads and, when torch's BLAS is OpenBLAS (Debian's
    libopenblas0-pthread), OpenBLAS's own thread pool, which torch does not size."""
    import ctypes
    torch.set_num_threads(n)
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split()[-1] for line in f if "libopenblas" in line}
        for lib in libs:
            ctypes.CDLL(lib).openblas_set_num_threads(n)
    except (OSError, AttributeError):
        pass  # not Linux, or another BLAS: torch.set_num_threads is all there is


def cpu_has_bf16():
    """Whether this CPU multiplies bfloat16 natively (x86 AVX512-BF16 or AMX-BF16; Linux)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def use_bf16(precision, device):
    """training.precision resolved for a device: True to train in bf16."""
    if precision == "auto":
        if device.type == "cuda":
            return torch.cuda.is_bf16_supported()
        return cpu_has_bf16()
    return precision == "bf16"


def snapshot_dirs(out):
    """A run's snapshot folders (training.keep_snapshots), OUT/snapshots/step-S/, by step."""
    root = os.path.join(out, "snapshots")
    if not os.path.isdir(root):
        return []
    steps = sorted(int(n[5:]) for n in os.listdir(root) if n.startswith("step-") and n[5:].isdigit())
    return [os.path.join(root, f"step-{s}") for s in steps]


def atomic_torch_save(obj, path):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".ckpt.tmp", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(obj, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def seq_loss(logits, tgt_out, label_smoothing=0.0):
    """Summed token cross-entropy over non-pad positions."""
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1),
                           ignore_index=PAD_ID, reduction="sum", label_smoothing=label_smoothing)


def batch_loss(model, b, label_smoothing=0.0, softmax_candidates=0, generator=None):
    """Summed token cross-entropy of a Batch.

    The output layer (the largest matmul, [tokens, l] x [l, V]) is applied to the
    non-padding positions only, fused with the loss (loss.py): the same loss as
    seq_loss(model(...)), less work. softmax_candidates K (with a CPU generator): the
    sampled softmax over the batch's targets and drawn ids, K in all (loss.py), when K
    is below V.
    """
    feats, _ = model.features(b.src, b.src_len, b.tgt_in)
    keep = b.tgt_out != PAD_ID
    g = model.generator
    target = b.tgt_out[keep]
    candidates = None
    if softmax_candidates and softmax_candidates < g.weight.size(0):
        candidates = sample_candidates(target, g.weight.size(0), softmax_candidates, generator)
    return linear_cross_entropy(model.drop(feats[keep]), g.weight, g.bias, target, label_smoothing,
                                candidates=candidates)


class Trainer:
    def __init__(self, recipe, corpus, src_lang, tgt_lang, out, log=print, quiet=False, tokenizers=None,
                 warm_start=None, device="cpu"):
        """tokenizers: a directory whose SentencePiece model(s) to use instead of training new ones.
        warm_start: a model folder to continue from when OUT has no checkpoint (its tokenizers too).
        device: "cpu" or "cuda" (or "cuda:N"): where the model trains."""
        self.device = torch.device(device)
        if self.device.type not in ("cpu", "cuda"):
            raise RecipeError(f"--device must be cpu or cuda, got {device}")
        if self.device.type == "cuda" and not torch.cuda.is_available():
            raise RecipeError("--device cuda: this torch has no usable CUDA device "
                              f"(torch {torch.__version__}, CUDA build: {torch.version.cuda})")
        self.recipe, self.corpus, self.out = recipe, corpus, out
        self.warm_start_dir = warm_start
        self.tokenizers_from = tokenizers or warm_start
        self.src_lang, self.tgt_lang = src_lang, tgt_lang
        self.quiet = quiet
        self._log = log
        tr = recipe["training"]
        set_threads(int(tr["threads"]))
        # Values below 1e-38 (sigmoid's far tail in the attention scores, tiny gradients)
        # as zeros: on x86 a denormal operand makes an operation many times slower
        # (measured: the attention's sigmoid and its backward 4-6x slower in training).
        torch.set_flush_denormal(True)
        self.bf16 = use_bf16(tr["precision"], self.device)
        self._batches, self._batches_epoch = None, None  # the current epoch's (batches())
        os.makedirs(out, exist_ok=True)
        self.model_dir = os.path.join(out, "model")
        self.ckpt_path = os.path.join(out, "checkpoint.pt")
        self._prepare_data()
        self.cfg = model_config(recipe, src_lang, tgt_lang)
        from .model import build_model
        torch.manual_seed(tr["seed"])
        random.seed(tr["seed"])
        self.model = build_model(self.cfg).to(self.device)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=tr["lr"])
        self.state = {"step": 0, "epoch": 0, "batch_idx": 0, "train_seconds": 0.0,
                      "best_dev_loss": math.inf, "best_dev_bleu": -1.0, "bad_evals": 0,
                      "lr": tr["lr"], "stopped": None, "history": [],
                      "warm_starts": [],    # the step of each warm start
                      "lr_warmup": None}  # [first step, last step] of a warm start's warm-up

    # ---- logging -------------------------------------------------------------------
    def log(self, msg):
        line = time.strftime("%Y-%m-%d %H:%M:%S ") + msg
        with open(os.path.join(self.out, "train.log"), "a", encoding="utf-8") as f:
            f.write(line + "\n")
        if not self.quiet:
            self._log(line)

    # ---- data ----------------------------------------------------------------------
    def _prepare_data(self):
        r = self.recipe
        t, dcfg = r["tokenizer"], r["data"]
        src, tgt = D.read_parallel(self.corpus, "train", self.src_lang, self.tgt_lang, dcfg["train_limit"])
        if dcfg["repeat_first"] is not None:  # after the tokenizers, which see each line once
            n, k = dcfg["repeat_first"]
            if n > len(src):
                raise RecipeError(f"data.repeat_first: {n} lines asked for, the training split has {len(src)}")
        if dcfg["train_max_src_words"] is not None:
            keep = [k for k, s in enumerate(src) if len(s.split()) <= dcfg["train_max_src_words"]]
            src, tgt = [src[k] for k in keep], [tgt[k] for k in keep]
        dsrc, dtgt = D.read_parallel(self.corpus, "dev", self.src_lang, self.tgt_lang, dcfg["dev_limit"])
        sp_src, _ = Tokenizers.paths(self.model_dir, t["shared"])
        if self.tokenizers_from and not os.path.isfile(sp_src):
            os.makedirs(self.model_dir, exist_ok=True)
            for name in Tokenizers.paths("", t["shared"]):
                if not os.path.isfile(os.path.join(self.tokenizers_from, name)):
                    raise RecipeError(f"--tokenizers: {os.path.join(self.tokenizers_from, name)} not found "
                                      f"(shared vocabulary: {bool(t['shared'])})")
                shutil.copyfile(os.path.join(self.tokenizers_from, name), os.path.join(self.model_dir, name))
        if not os.path.isfile(sp_src):
            # Tokenizers are trained on exactly the training pairs used (train_limit applies).
            Tokenizers.train(self.model_dir, src, tgt, t["src_vocab"], t["tgt_vocab"], t["shared"],
                             t["model_type"], t["character_coverage"], self.recipe["training"]["seed"])
        self.tok = Tokenizers.load(self.model_dir)
        if self.tok.src.get_piece_size() != t["src_vocab"] or self.tok.tgt.get_piece_size() != t["tgt_vocab"]:
            raise RecipeError(f"tokenizers in {self.model_dir} have {self.tok.src.get_piece_size()}/"
                              f"{self.tok.tgt.get_piece_size()} pieces, the recipe asks for "
                              f"{t['src_vocab']}/{t['tgt_vocab']}")
        ms, mt = r["model"]["max_src_len"], dcfg["max_tgt_len"]
        if dcfg["repeat_first"] is not None:
            n, k = dcfg["repeat_first"]
            first = n if dcfg["train_max_src_words"] is None else sum(1 for i in keep if i < n)
            src, tgt = src[:first] * k + src[first:], tgt[:first] * k + tgt[first:]
        self.train_pairs, dropped = D.encode_pairs(src, tgt, self.tok, ms, mt)
        self.dev_pairs, _ = D.encode_pairs(dsrc, dtgt, self.tok, ms, mt)
        self.dev_src, self.dev_ref = dsrc, dtgt
        self.train_dropped = dropped
        if not self.train_pairs:
            raise RecipeError("no training pairs left after length filtering")

    def batches(self, epoch):
        """The epoch's batches (a pure function of seed and epoch), made once per epoch:
        making them sorts every training pair, which took 1.8 CPU seconds on the joint
        corpus, more than the training step itself, when it was redone every step."""
        if self._batches_epoch != epoch:
            tr = self.recipe["training"]
            self._batches = D.make_batches(self.train_pairs, tr["batch_tokens"], tr["seed"], epoch,
                                           tr["max_sentences"])
            self._batches_epoch = epoch
        return self._batches

    # ---- checkpoints ---------------------------------------------------------------
    def save_checkpoint(self):
        ck = {"model": self.model.state_dict(), "optimizer": self.opt.state_dict(),
              "state": self.state, "recipe": self.recipe,
              "torch_rng": torch.get_rng_state(), "python_rng": random.getstate()}
        if self.device.type == "cuda":
            ck["cuda_rng"] = torch.cuda.get_rng_state(self.device)
        atomic_torch_save(ck, self.ckpt_path)

    def load_checkpoint(self):
        ck = torch.load(self.ckpt_path, map_location="cpu")
        if ck["recipe"] != self.recipe:
            self.log("warning: the recipe differs from the checkpoint's; resuming with the checkpoint's state")
        self.model.load_state_dict(ck["model"])       # copies onto the model's device
        self.opt.load_state_dict(ck["optimizer"])     # Adam's moments follow the parameters
        self.state = ck["state"]
        torch.set_rng_state(ck["torch_rng"])
        random.setstate(ck["python_rng"])
        if self.device.type == "cuda" and "cuda_rng" in ck:
            torch.cuda.set_rng_state(ck["cuda_rng"], self.device)

    def load_warm_start(self, model_dir):
        """Weights and training_state.json of a model folder (see the module's docstring)."""
        from . import export
        path = os.path.join(model_dir, "model.safetensors")
        model, cfg = export.load(path)
        ours = self.cfg.to_dict()
        # dropout is a training setting and decoding the search defaults (a shipped folder carries the
        # search chosen on dev, not the recipe's): neither is part of the weights
        diff = sorted(k for k, v in cfg.to_dict().items() if k not in WARM_START_FREE_KEYS and ours.get(k) != v)
        if diff:
            raise RecipeError(f"{path}: its model differs from the recipe's in {', '.join(diff)}")
        self.model.load_state_dict(model.state_dict())
        # an exported folder has it beside the weights, a shipped one (models/ship.sh) in training/
        state_path = next((p for p in (os.path.join(model_dir, STATE_FILE),
                                       os.path.join(model_dir, "training", STATE_FILE)) if os.path.isfile(p)), None)
        if state_path:
            with open(state_path, encoding="utf-8") as f:
                saved = json.load(f)
            unknown = sorted(set(saved) - set(self.state))
            if unknown:
                raise RecipeError(f"{state_path}: unknown keys {unknown}")
            self.state.update(saved)
        self.state["warm_starts"].append(self.state["step"])
        tr = self.recipe["training"]
        if tr["warm_start_lr_warmup"]:
            self.state["lr_warmup"] = [self.state["step"], self.state["step"] + int(tr["warm_start_lr_warmup"])]
        torch.manual_seed(tr["seed"] + self.state["step"])
        random.seed(tr["seed"] + self.state["step"])
        return state_path

    def export_best(self, metrics):
        from . import export
        meta = {"corpus": os.path.basename(os.path.normpath(self.corpus)),
                "train_pairs": len(self.train_pairs), "step": self.state["step"],
                "epoch": self.state["epoch"], "dev": metrics}
        export.save(self.model, self.cfg, os.path.join(self.model_dir, "model.safetensors"), meta)  # to CPU

    def snapshot(self, metrics):
        """With training.keep_snapshots = N > 0: this evaluation's weights and state in
        OUT/snapshots/step-S/, and only the last N such folders kept."""
        from . import export
        keep = int(self.recipe["training"]["keep_snapshots"])
        if keep <= 0:
            return
        d = os.path.join(self.out, "snapshots", f"step-{self.state['step']}")
        os.makedirs(d, exist_ok=True)
        export.save(self.model, self.cfg, os.path.join(d, "model.safetensors"),
                    {"step": self.state["step"], "epoch": self.state["epoch"], "dev": metrics})
        self.write_state(os.path.join(d, STATE_FILE))
        for old in snapshot_dirs(self.out)[:-keep]:
            shutil.rmtree(old)

    def write_state(self, path):
        """The training state as JSON (a warm start's starting point), written atomically."""
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.state, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)

    # ---- evaluation ----------------------------------------------------------------
    def dev_loss(self):
        self.model.eval()
        tot, n = 0.0, 0
        with torch.inference_mode():
            for idx in D.make_batches(self.dev_pairs, self.recipe["training"]["batch_tokens"], 0, 0):
                b = D.collate(self.dev_pairs, idx).to(self.device)
                tot += float(batch_loss(self.model, b))
                n += b.n_tokens
        self.model.train()
        return tot / max(n, 1)

    def dev_bleu(self):
        k = self.recipe["training"]["dev_bleu_sentences"]
        if not k:
            return None
        dec = self.recipe["decoding"]
        # The search (small per-step tensors built on the CPU) runs on a CPU copy.
        model = self.model if self.device.type == "cpu" else copy.deepcopy(self.model).cpu().eval()
        hyps = E.translate_lines(model, self.tok, self.dev_src[:k], self.cfg.max_src_len,
                                 beam=1, max_len_a=dec["max_len_a"], max_len_b=dec["max_len_b"])
        self.model.train()
        return E.score(hyps, self.dev_ref[:k])["bleu"]

    def evaluate(self):
        with torch.random.fork_rng():
            t0 = time.time()
            loss = self.dev_loss()
            bleu = self.dev_bleu()
            secs = time.time() - t0
        st = self.state
        improved_loss = loss < st["best_dev_loss"] - 1e-4
        improved_bleu = bleu is not None and bleu > st["best_dev_bleu"]
        metrics = {"step": st["step"], "epoch": st["epoch"], "dev_loss": loss,
                   "dev_ppl": math.exp(min(loss, 50)), "dev_bleu": bleu, "lr": st["lr"],
                   "train_seconds": round(st["train_seconds"], 1)}
        if improved_loss:
            st["best_dev_loss"], st["bad_evals"] = loss, 0
        else:
            st["bad_evals"] += 1
            st["lr"] *= self.recipe["training"]["lr_decay"]  # train_step hands it to Adam
        # The exported model is the best by dev BLEU (dev loss when BLEU is off).
        if improved_bleu or (bleu is None and improved_loss):
            if bleu is not None:
                st["best_dev_bleu"] = bleu
            self.export_best(metrics)
            metrics["exported"] = True
        st["history"].append(metrics)
        if metrics.get("exported"):
            self.write_state(os.path.join(self.model_dir, STATE_FILE))
        self.snapshot(metrics)
        with open(os.path.join(self.out, "metrics.jsonl"), "a", encoding="utf-8") as f:
            f.write(json.dumps(metrics) + "\n")
        b = "-" if bleu is None else f"{bleu:.2f}"
        self.log(f"eval step {st['step']} epoch {st['epoch']}: dev loss {loss:.4f} ppl "
                 f"{metrics['dev_ppl']:.2f} BLEU {b} (best {st['best_dev_bleu']:.2f}) lr {st['lr']:.2e}"
                 f"{' *exported*' if metrics.get('exported') else ''} [{secs:.0f}s]")
        return metrics

    # ---- training ------------------------------------------------------------------
    def step_lr(self):
        """The learning rate of the next step: state["lr"], ramped up after a warm start.
        train_step sets it on the optimizer before each step, the one place that does."""
        st = self.state
        w = st.get("lr_warmup")
        if w and st["step"] < w[1]:
            return st["lr"] * (st["step"] - w[0] + 1) / (w[1] - w[0])
        return st["lr"]

    def softmax_candidates(self):
        """K of the sampled softmax for the next step, 0 for the full softmax: the recipe's
        K, until the rate first drops below training.lr where softmax_full_after_decay is set
        (a function of the state, so a resumed run makes the same choice)."""
        tr = self.recipe["training"]
        k = tr.get("softmax_candidates", 0)
        if k and tr.get("softmax_full_after_decay", False) and self.state["lr"] < tr["lr"]:
            return 0
        return k

    def train_step(self, b):
        tr = self.recipe["training"]
        for g in self.opt.param_groups:
            g["lr"] = self.step_lr()
        self.opt.zero_grad(set_to_none=True)
        b = b.to(self.device)
        k = self.softmax_candidates()
        if k != getattr(self, "_last_candidates", k):
            self.log(f"step {self.state['step']}: " + (f"sampled softmax over {k} ids" if k else
                     f"the full softmax from here (the rate {self.state['lr']:.2e} is below training.lr)"))
        self._last_candidates = k
        # The draws of the sampled softmax: their own stream, a function of (seed, step), so
        # that dropout's stream is the same as without it and a resumed run draws the same.
        gen = torch.Generator().manual_seed(tr["seed"] * 1_000_003 + self.state["step"]) if k else None
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.bf16):
            loss = batch_loss(self.model, b, tr["label_smoothing"], k, gen)
        (loss / b.n_tokens).backward()
        if tr["clip_norm"]:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), tr["clip_norm"])
        self.opt.step()
        return float(loss) / b.n_tokens

    def should_stop(self, t_start):
        tr, st = self.recipe["training"], self.state
        if tr["max_steps"] is not None and st["step"] >= tr["max_steps"]:
            return "max_steps"
        if st["epoch"] >= tr["max_epochs"]:
            return "max_epochs"
        if tr["max_minutes"] is not None and st["train_seconds"] >= 60 * tr["max_minutes"]:
            return "max_minutes"
        if st["bad_evals"] >= tr["patience"]:
            return "early_stop"
        if st["lr"] < tr["min_lr"]:
            return "min_lr"
        return None

    def run(self, stop_after_steps=None):
        """Trains until a stop condition; resumes from OUT/checkpoint.pt when it exists.

        stop_after_steps: leave after this many steps of THIS call, having written a
        checkpoint (used to test exact resume).
        """
        from tqdm import tqdm
        tr = self.recipe["training"]
        with open(os.path.join(self.out, "recipe.yaml"), "w", encoding="utf-8") as f:
            yaml.safe_dump(self.recipe, f, sort_keys=False)
        for f in os.listdir(self.out):  # a checkpoint being written when the run was killed
            if f.startswith(".tmp-") and f.endswith(".ckpt.tmp"):
                os.unlink(os.path.join(self.out, f))
        if os.path.isfile(self.ckpt_path):
            self.load_checkpoint()
            self.log(f"resumed from {self.ckpt_path} at step {self.state['step']} "
                     f"(epoch {self.state['epoch']}, batch {self.state['batch_idx']}; "
                     f"{'bf16' if self.bf16 else 'fp32'} products)")
        elif self.warm_start_dir:
            state_path = self.load_warm_start(self.warm_start_dir)
            self.log(f"warm start from {self.warm_start_dir} at step {self.state['step']} "
                     f"(epoch {self.state['epoch']}, batch {self.state['batch_idx']}; "
                     f"{'state from ' + state_path if state_path else 'no ' + STATE_FILE + ', a new run'}; "
                     f"fresh optimizer moments)")
        else:
            n_par = sum(p.numel() for p in self.model.parameters())
            self.log(f"start: {len(self.train_pairs)} training pairs ({self.train_drop_msg()}), "
                     f"{len(self.dev_pairs)} dev pairs, {n_par / 1e6:.2f}M parameters, "
                     f"{torch.get_num_threads()} threads, device {self.device}, "
                     f"{'bf16' if self.bf16 else 'fp32'} products")
        st = self.state
        if st["stopped"] in ("max_steps", "max_minutes", "max_epochs") and self.should_stop(None) is None:
            # The budget was raised since (e.g. --max-steps): the same run goes on.
            self.log(f"continuing: the limit that stopped it ({st['stopped']}) was raised")
            st["stopped"] = None
        if st["stopped"]:
            self.log(f"already finished ({st['stopped']})")
            return st
        passed = [k for k in tr["lr_decay_steps"] if k <= st["step"]]
        if passed:
            self.log(f"note: training.lr_decay_steps {passed} are not after step {st['step']}: "
                     f"they apply to a run only when it passes them")
        self.model.train()
        t_start, last_ckpt = time.time(), time.time()
        steps_here = 0
        win_tok, win_loss, win_t0, win_n = 0, 0.0, time.time(), 0
        bar = None
        while True:
            reason = self.should_stop(t_start)
            if reason:
                break
            batches = self.batches(st["epoch"])
            if bar is None or bar.total != len(batches):
                if bar is not None:
                    bar.close()
                bar = tqdm(total=len(batches), initial=st["batch_idx"], unit="batch", disable=self.quiet,
                           mininterval=1.0 if sys.stderr.isatty() else 30.0, dynamic_ncols=True,
                           desc=f"epoch {st['epoch']}")
            if st["batch_idx"] >= len(batches):
                st["epoch"] += 1
                st["batch_idx"] = 0
                bar.reset(total=len(batches))
                bar.set_description(f"epoch {st['epoch']}")
                continue
            b = D.collate(self.train_pairs, batches[st["batch_idx"]])
            t0 = time.time()
            loss = self.train_step(b)
            dt = time.time() - t0
            if not math.isfinite(loss):
                raise FloatingPointError(f"loss is {loss} at step {st['step']}")
            before = st["train_seconds"]
            st["train_seconds"] += dt
            st["step"] += 1
            if st["step"] in tr["lr_decay_steps"]:
                st["lr"] *= tr["lr_decay"]
                self.log(f"step {st['step']}: scheduled learning-rate decay to {st['lr']:.2e}")
            for m in tr["lr_decay_minutes"]:
                if before < 60 * m <= st["train_seconds"]:
                    st["lr"] *= tr["lr_decay"]
                    self.log(f"step {st['step']}: learning-rate decay at {m} minutes of training to {st['lr']:.2e}")
            st["batch_idx"] += 1
            steps_here += 1
            win_tok += b.n_tokens
            win_loss += loss * b.n_tokens
            win_n += 1
            bar.update(1)
            tps = win_tok / max(time.time() - win_t0, 1e-9)
            bar.set_postfix_str(f"loss {win_loss / max(win_tok, 1):.3f} tok/s {tps:.0f} step {st['step']}", refresh=False)
            if tr["log_every"] and st["step"] % tr["log_every"] == 0:
                self.log(f"step {st['step']} epoch {st['epoch']} batch {st['batch_idx']}/{len(batches)}: "
                         f"train loss {win_loss / max(win_tok, 1):.4f} {tps:.0f} tgt tok/s lr {st['lr']:.2e}")
                win_tok, win_loss, win_t0, win_n = 0, 0.0, time.time(), 0
            if tr["eval_every"] and st["step"] % tr["eval_every"] == 0:
                self.evaluate()
                win_tok, win_loss, win_t0, win_n = 0, 0.0, time.time(), 0  # tok/s without eval time
            ckpt_due = (tr["checkpoint_every"] and st["step"] % tr["checkpoint_every"] == 0) or \
                (time.time() - last_ckpt >= 60 * tr["checkpoint_minutes"])
            if stop_after_steps is not None and steps_here >= stop_after_steps:
                self.save_checkpoint()
                bar.close()
                return st
            if ckpt_due:
                self.save_checkpoint()
                last_ckpt = time.time()
                self.log(f"checkpoint at step {st['step']}")
        if bar is not None:
            bar.close()
        # A final evaluation unless the last step just had one.
        if not st["history"] or st["history"][-1]["step"] != st["step"]:
            self.evaluate()
        st["stopped"] = reason
        self.save_checkpoint()
        self.log(f"stopped: {reason} at step {st['step']}, epoch {st['epoch']}; best dev BLEU "
                 f"{st['best_dev_bleu']:.2f}, best dev loss {st['best_dev_loss']:.4f}; model in {self.model_dir}")
        return st

    def train_drop_msg(self):
        return f"{self.train_dropped} dropped as too long or empty"

    def benchmark(self, steps, warmup=2):
        """Times `steps` training steps on batches spread evenly over epoch 0.

        Returns a dict: target tokens per wall second, per CPU second of this process
        (all its threads; less sensitive to other work on the machine), tokens,
        seconds, and the 1-minute load average before and after.
        """
        batches = self.batches(0)
        self.model.train()
        for k in range(warmup):
            self.train_step(D.collate(self.train_pairs, batches[k % len(batches)]))
        load0 = os.getloadavg()[0]
        tok, secs, cpu = 0, 0.0, 0.0
        for k in range(steps):
            b = D.collate(self.train_pairs, batches[(k * len(batches)) // steps]).to(self.device)
            t0, c0 = time.time(), time.process_time()
            self.train_step(b)   # float(loss) waits for the device
            secs += time.time() - t0
            cpu += time.process_time() - c0
            tok += b.n_tokens
        return {"tok_per_s": tok / secs, "tok_per_cpu_s": tok / cpu, "tokens": tok, "seconds": secs,
                "load_before": load0, "load_after": os.getloadavg()[0]}

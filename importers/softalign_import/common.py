"""What both toolkits' importers share: the refusal error, the vocabulary mapping onto
SentencePiece ids, and writing the folder.

A toolkit reader (opennmt.py, joeynmt.py) returns a `Toolkit` description: the config
keys of WEIGHTS_FORMAT.md it determines, the softalign tensors with the vocabulary
tensors still in the toolkit's row order, the toolkit's token lists and its special
tokens. `import_checkpoint` then re-orders the vocabulary rows to SentencePiece ids
(`remap_vocab`) and writes the folder.
"""
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field

import torch

from .errors import ImportRefused  # noqa: F401 (part of this module's interface)

FORMAT = "softalign-weights"
# A generator bias that keeps a row out of the softmax: exp(-1e30 - max) is exactly 0 in float32.
NEVER = -1e30


@dataclass
class Toolkit:
    toolkit: str                 # "opennmt-py" or "joeynmt"
    checkpoint: str
    config: dict                 # format keys (variant, sizes, version-2 keys, decoding)
    tensors: dict                # softalign names → float32 tensors; vocabulary rows in toolkit order
    src_itos: list               # toolkit token strings by row
    tgt_itos: list
    specials: dict               # "unk"/"pad"/"bos"/"eos" → the toolkit's token string
    notes: list = field(default_factory=list)


def refuse(ckpt, msg):
    raise ImportRefused(f"{ckpt}: {msg}")


class Tensors:
    """A checkpoint's tensors, taken one by one: a missing one is a refusal that says
    why (`missing_why`), and `unused()` lists those no one took (they would be parts of
    the model the format has no place for)."""

    def __init__(self, tensors, ckpt, missing_why):
        self.P, self.ckpt, self.missing_why, self.used = tensors, ckpt, missing_why, set()

    def __call__(self, name):
        if name not in self.P:
            refuse(self.ckpt, f"tensor {name} is missing: {self.missing_why}")
        self.used.add(name)
        return self.P[name]

    def unused(self, ignore=()):
        return sorted(set(self.P) - self.used - set(ignore))


# ---- vocabulary -----------------------------------------------------------------

def _spm_specials(sp):
    return {"unk": sp.unk_id(), "bos": sp.bos_id(), "eos": sp.eos_id(), "pad": sp.pad_id()}


def _piece_id(sp, tok):
    """The SentencePiece id of a piece string, or None (piece_to_id answers unk for unknown pieces)."""
    i = sp.piece_to_id(tok)
    if i == sp.unk_id() and tok != sp.id_to_piece(sp.unk_id()):
        return None
    if sp.is_control(i) or sp.is_unknown(i):
        return None  # a control piece (<s>, </s>) is reached through the specials only
    return i


def remap_vocab(tk, sp_src, sp_tgt):
    """Re-orders the vocabulary rows to SentencePiece ids.

    - A toolkit special maps to the SentencePiece model's own id of that kind (unk, bos,
      eos, pad) when both SentencePiece models have it at the same id; otherwise it gets
      an appended id, the same on both sides.
    - An ordinary toolkit token maps to its SentencePiece id (by piece string); tokens with
      no SentencePiece id (OpenNMT's `averyunlikelytoken*` fillers, ...) are appended after
      the SentencePiece ids, so that they keep their place in the softmax.
    - Source ids without a toolkit row read the toolkit's `<unk>` row.
    - Target ids without a toolkit row get zero embedding and generator rows and the
      generator bias NEVER (-1e30): they never enter the softmax in float32.

    Returns (tensors, special ids, src_vocab, tgt_vocab, appended rows {side: {id: token}}).
    """
    n_src, n_tgt = sp_src.get_piece_size(), sp_tgt.get_piece_size()
    ss, st = _spm_specials(sp_src), _spm_specials(sp_tgt)
    base = max(n_src, n_tgt)
    special_ids, appended_specials = {}, []
    for kind in ("unk", "pad", "bos", "eos"):
        if ss[kind] >= 0 and ss[kind] == st[kind]:
            special_ids[kind] = ss[kind]
        else:
            special_ids[kind] = base + len(appended_specials)
            appended_specials.append(kind)
    first_free = base + len(appended_specials)

    def side(itos, sp, n):
        """toolkit row → new id; and the new vocabulary size."""
        new_of, used = {}, set(special_ids.values())
        by_token = {tok: kind for kind, tok in tk.specials.items()}
        extra = first_free
        for row, tok in enumerate(itos):
            if tok in by_token:
                new_of[row] = special_ids[by_token[tok]]
                continue
            i = _piece_id(sp, tok)
            if i is None or i in used:
                new_of[row] = extra
                extra += 1
            else:
                new_of[row] = i
                used.add(i)
        return new_of, extra

    src_of, v_src = side(tk.src_itos, sp_src, n_src)
    tgt_of, v_tgt = side(tk.tgt_itos, sp_tgt, n_tgt)
    unk_row = tk.src_itos.index(tk.specials["unk"])

    T = dict(tk.tensors)
    emb = T["src_emb.weight"]
    new = emb[unk_row].unsqueeze(0).repeat(v_src, 1)
    for row, i in src_of.items():
        new[i] = emb[row]
    T["src_emb.weight"] = new

    rows = torch.tensor(list(tgt_of.keys()), dtype=torch.long)
    ids = torch.tensor(list(tgt_of.values()), dtype=torch.long)
    for name in ("tgt_emb.weight", "generator.weight"):
        w = T[name]
        new = w.new_zeros(v_tgt, w.shape[1])
        new[ids] = w[rows]
        T[name] = new
    b = T["generator.bias"]
    new = torch.full((v_tgt,), NEVER, dtype=b.dtype)
    new[ids] = b[rows]
    T["generator.bias"] = new

    appended = {"src": {i: tk.src_itos[r] for r, i in src_of.items() if i >= n_src},
                "tgt": {i: tk.tgt_itos[r] for r, i in tgt_of.items() if i >= n_tgt}}
    return T, special_ids, v_src, v_tgt, appended


# ---- the folder -----------------------------------------------------------------

def full_config(tk, special_ids, v_src, v_tgt, appended, name, src_lang, tgt_lang):
    c = dict(tk.config)
    c.update(format=FORMAT, format_version=2, src_vocab=v_src, tgt_vocab=v_tgt, shared_vocab=False,
             pad_id=special_ids["pad"], unk_id=special_ids["unk"], bos_id=special_ids["bos"],
             eos_id=special_ids["eos"], name=name, src_lang=src_lang, tgt_lang=tgt_lang)
    c["imported_from"] = {"toolkit": tk.toolkit, "checkpoint": os.path.basename(tk.checkpoint)}
    # the appended rows' toolkit tokens (ids past the SentencePiece models'), as text
    c["imported_rows"] = {s: {str(i): t for i, t in sorted(rows.items())} for s, rows in appended.items()}
    return c


def check_with_reference(config, tensors):
    """When softalign_ref (models/) can be imported: the config validates and the tensors
    are exactly those its model has, with the same shapes."""
    try:
        from softalign_ref.config import ModelConfig
        from softalign_ref.model import build_model
    except ImportError:
        return
    cfg = ModelConfig.from_dict(config)
    cfg.validate()
    want = {k: tuple(v.shape) for k, v in build_model(cfg).state_dict().items()}
    have = {k: tuple(v.shape) for k, v in tensors.items()}
    if want != have:
        diff = sorted(set(want.items()) ^ set(have.items()))
        raise RuntimeError(f"internal error: imported tensors do not match the config: {diff[:6]}")


def write_folder(out_dir, config, tensors, src_spm, tgt_spm):
    """model.safetensors (config JSON in the metadata) + src.spm.model + tgt.spm.model,
    written into a temporary folder beside out_dir and then moved into place."""
    from safetensors.torch import save_file
    parent = os.path.dirname(os.path.abspath(out_dir)) or "."
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".import-", dir=parent)
    try:
        t = {k: v.detach().to(torch.float32).contiguous().clone() for k, v in tensors.items()}
        save_file(t, os.path.join(tmp, "model.safetensors"),
                  metadata={"config": json.dumps(config, sort_keys=True, ensure_ascii=False)})
        shutil.copyfile(src_spm, os.path.join(tmp, "src.spm.model"))
        shutil.copyfile(tgt_spm, os.path.join(tmp, "tgt.spm.model"))
        os.makedirs(out_dir, exist_ok=True)
        for f in ("model.safetensors", "src.spm.model", "tgt.spm.model"):
            os.replace(os.path.join(tmp, f), os.path.join(out_dir, f))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out_dir


def keep_rows(tk):
    """--pretokenized: the toolkit's rows stay as they are (its token lists become the
    SentencePiece files, token_spm.py). Returns remap_vocab's tuple."""
    special_ids = {kind: tk.src_itos.index(tok) for kind, tok in tk.specials.items()}
    for kind, tok in tk.specials.items():
        if tk.tgt_itos.index(tok) != special_ids[kind]:
            refuse(tk.checkpoint, f"--pretokenized: the special token {tok} has different ids on the two sides")
    return dict(tk.tensors), special_ids, len(tk.src_itos), len(tk.tgt_itos), {"src": {}, "tgt": {}}


def import_checkpoint(toolkit, checkpoint, out_dir, src_spm, tgt_spm, config=None, src_vocab=None,
                      tgt_vocab=None, name=None, src_lang=None, tgt_lang=None, pretokenized=False):
    """Reads a toolkit checkpoint and writes softalign's export folder into out_dir.
    Returns out_dir. Raises ImportRefused (nothing written) for what the format cannot
    express. pretokenized: text in and out is the toolkit's tokens separated by spaces
    (WEIGHTS_FORMAT.md `pretokenized`); src_spm and tgt_spm are not read."""
    import sentencepiece as spm
    if not os.path.isfile(checkpoint):
        raise ImportRefused(f"{checkpoint}: no such checkpoint file")
    if toolkit in ("opennmt-py", "opennmt"):
        from . import opennmt
        tk = opennmt.read(checkpoint)
    elif toolkit == "joeynmt":
        from . import joeynmt
        tk = joeynmt.read(checkpoint, config, src_vocab, tgt_vocab)
    else:
        raise ImportRefused(f"unknown toolkit {toolkit!r} (opennmt-py or joeynmt)")
    if pretokenized:
        if src_spm or tgt_spm:
            raise ImportRefused(f"{checkpoint}: --pretokenized lists the toolkit's own tokens: "
                                "give no --src-spm or --tgt-spm")
        tensors, special_ids, v_src, v_tgt, appended = keep_rows(tk)
    else:
        for label, path in (("--src-spm", src_spm), ("--tgt-spm", tgt_spm)):
            if not path or not os.path.isfile(path):
                raise ImportRefused(f"{checkpoint}: {label} {path or '(missing)'}: no SentencePiece model file "
                                    "(an imported model reads SentencePiece ids; --pretokenized: the toolkit's "
                                    "tokens, separated by spaces)")
        sp_src = spm.SentencePieceProcessor(model_file=src_spm)
        sp_tgt = spm.SentencePieceProcessor(model_file=tgt_spm)
        tensors, special_ids, v_src, v_tgt, appended = remap_vocab(tk, sp_src, sp_tgt)
    name = name or os.path.splitext(os.path.basename(checkpoint))[0]
    src_lang = getattr(tk, "src_lang", "") if src_lang is None else src_lang
    tgt_lang = getattr(tk, "tgt_lang", "") if tgt_lang is None else tgt_lang
    config = full_config(tk, special_ids, v_src, v_tgt, appended, name, src_lang, tgt_lang)
    check_with_reference(config, tensors)
    if not pretokenized:
        return write_folder(out_dir, config, tensors, src_spm, tgt_spm)
    from .token_spm import token_model
    config["pretokenized"] = True
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for side, itos in (("src", tk.src_itos), ("tgt", tk.tgt_itos)):
            try:
                proto = token_model(itos, tk.specials)
            except ValueError as e:
                refuse(checkpoint, f"--pretokenized: the {side} vocabulary: {e}")
            paths.append(os.path.join(tmp, f"{side}.tokens.model"))
            with open(paths[-1], "wb") as f:
                f.write(proto)
        return write_folder(out_dir, config, tensors, *paths)

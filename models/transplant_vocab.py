#!/usr/bin/env python3
"""A trained model moved onto another vocabulary: the start of a run that keeps what
the model knows and speaks with a new tokenizer.

  python3 models/transplant_vocab.py --model models/en-fr --tokenizers TOK_DIR \
      --recipe models/recipes/everyday-joint.yaml --out DIR
  python3 models/train.py --recipe models/recipes/everyday-joint.yaml ... \
      --tokenizers TOK_DIR --warm-start DIR

Every tensor that does not depend on the vocabulary (encoder, decoder, attention,
bridge, maxout) is copied. The vocabulary-sized ones (the source and target
embeddings, the output layer's rows and biases) get one row per new piece:
- the old row, where the old vocabulary has the same piece (and for the special ids
  pad, unk, bos, eos, which both tokenizers share);
- otherwise the mean of the old rows of the pieces that the old tokenizer splits the
  new piece's text into: "▁rabbit" is "▁ra b bit" in a software-text vocabulary, and
  starts as the mean of those three;
- the old unk row, where the old tokenizer knows none of its characters.

DIR gets model.safetensors (the recipe's config, float32: what `train.py --warm-start`
checks against the recipe) and the new tokenizer. Both vocabularies must be shared
(one spm.model for both sides), as the shipped models' and the everyday recipe's are.
"""
import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from softalign_ref import export  # noqa: E402
from softalign_ref.model import build_model  # noqa: E402
from softalign_ref.tokenizer import PAD_ID, UNK_ID, BOS_ID, EOS_ID, load_spm  # noqa: E402
from softalign_ref.train import WARM_START_FREE_KEYS, RecipeError, load_recipe, model_config  # noqa: E402

# the tensors with one row per piece (the vocabulary is shared: one list for both sides)
VOCAB_TENSORS = ("src_emb.weight", "tgt_emb.weight", "generator.weight", "generator.bias")
# config keys that may differ between the old model and the recipe's: the warm start's, and the vocabulary
FREE_KEYS = {"src_vocab", "tgt_vocab", "name", *WARM_START_FREE_KEYS}
WORD_START = "\u2581"


def old_pieces_of(piece, old):
    """The old vocabulary's ids for a new piece: its own id where the old vocabulary has
    the piece, else the old tokenizer's split of its text (a piece inside a word, without
    the word-start mark, is split as the inside of a word). Empty when nothing is known."""
    pid = old.piece_to_id(piece)
    if pid != old.unk_id() or piece == old.id_to_piece(old.unk_id()):
        return [pid]
    text = piece.replace(WORD_START, " ")
    pieces = old.encode_as_pieces(text)
    if not piece.startswith(WORD_START) and pieces:
        # the tokenizer adds a word start to any text; a piece from inside a word drops it
        if pieces[0] == WORD_START:
            pieces = pieces[1:]
        elif pieces[0].startswith(WORD_START) and old.piece_to_id(pieces[0][1:]) != old.unk_id():
            pieces = [pieces[0][1:]] + pieces[1:]
    return [i for i in (old.piece_to_id(p) for p in pieces) if i != old.unk_id()]


def vocabulary_map(old, new):
    """For each new id, the list of old ids whose rows make its row, and counts."""
    rows, copied, composed, unknown = [], 0, 0, 0
    for i in range(new.get_piece_size()):
        if i in (PAD_ID, UNK_ID, BOS_ID, EOS_ID):
            rows.append([i])
            copied += 1
            continue
        piece = new.id_to_piece(i)
        ids = old_pieces_of(piece, old)
        if not ids:
            ids, unknown = [UNK_ID], unknown + 1
        elif len(ids) == 1 and old.id_to_piece(ids[0]) == piece:
            copied += 1
        else:
            composed += 1
        rows.append(ids)
    return rows, {"copied": copied, "composed": composed, "unknown": unknown}


def transplant(model_dir, tokenizer_dir, recipe, out_dir):
    """Writes out_dir/model.safetensors and out_dir/spm.model; returns the counts."""
    old_path = os.path.join(model_dir, "model.safetensors")
    old_model, old_cfg = export.load(old_path)
    if not old_cfg.shared_vocab:
        raise RecipeError(f"{old_path}: its vocabulary is not shared (one spm.model): not supported")
    if not recipe["tokenizer"]["shared"]:
        raise RecipeError("the recipe's vocabulary is not shared (tokenizer.shared): not supported")
    cfg = model_config(recipe, old_cfg.src_lang, old_cfg.tgt_lang)
    old_d, new_d = old_cfg.to_dict(), cfg.to_dict()
    diff = sorted(k for k in set(old_d) | set(new_d) if k not in FREE_KEYS and old_d.get(k) != new_d.get(k))
    if diff:
        raise RecipeError(f"{old_path}: its model differs from the recipe's in {', '.join(diff)}: "
                          "only the vocabulary can change")
    old_spm_path, = export.spm_paths(model_dir, True)
    new_spm_path, = export.spm_paths(tokenizer_dir, True)
    old, new = load_spm(old_spm_path), load_spm(new_spm_path)
    if new.get_piece_size() != cfg.src_vocab:
        raise RecipeError(f"{new_spm_path} has {new.get_piece_size()} pieces, the recipe {cfg.src_vocab}")
    rows, counts = vocabulary_map(old, new)
    model = build_model(cfg)
    old_state, state = old_model.state_dict(), model.state_dict()
    with torch.no_grad():
        for name, t in state.items():
            if name in VOCAB_TENSORS:
                t.copy_(torch.stack([old_state[name][ids].mean(0) for ids in rows]))
            else:
                t.copy_(old_state[name])
    os.makedirs(out_dir, exist_ok=True)
    export.save(model, cfg, os.path.join(out_dir, "model.safetensors"),
                {"transplanted_from": os.path.basename(os.path.normpath(model_dir)), **counts})
    shutil.copyfile(new_spm_path, os.path.join(out_dir, "spm.model"))
    return counts


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True, help="a model folder: model.safetensors and spm.model")
    p.add_argument("--tokenizers", required=True, help="the folder of the new spm.model")
    p.add_argument("--recipe", required=True, help="the recipe the run will train with")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a recipe override")
    p.add_argument("--out", required=True, help="the folder to write")
    a = p.parse_args(argv)
    try:
        counts = transplant(a.model, a.tokenizers, load_recipe(a.recipe, a.set), a.out)
    except (RecipeError, FileNotFoundError, ValueError) as e:
        print(f"transplant_vocab: {e}", file=sys.stderr)
        return 2
    print(f"transplant_vocab: {a.out}: {counts['copied']} pieces copied, {counts['composed']} composed "
          f"from the old pieces, {counts['unknown']} unknown (the old unk row)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""transplant_vocab.py: a trained model moved onto another vocabulary, row by row, and a
warm start from the result."""
import os
import subprocess
import sys

import pytest
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "..", "models")
sys.path.insert(0, MODELS)

import transplant_vocab  # noqa: E402
from softalign_ref import export  # noqa: E402
from softalign_ref.model import build_model  # noqa: E402
from softalign_ref.tokenizer import UNK_ID, load_spm, train_spm  # noqa: E402
from softalign_ref.train import RecipeError, Trainer, load_recipe, model_config  # noqa: E402
from test_train import write_recipe  # noqa: E402

# the old vocabulary learned from software text, the new one from everyday text too
SOFTWARE = ["development files for the library", "this package contains the documentation",
            "the tool converts files", "small program", "le fichier de la bibliothèque",
            "ce paquet contient la documentation", "l'outil convertit des fichiers", "petit programme"]
EVERYDAY = ["the cat sits on the mat", "a rabbit runs in the park", "where is the train station",
            "le chat est assis sur le tapis", "un lapin court dans le parc", "où est la gare"]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """An old model folder (random weights, a 40-piece vocabulary), a new tokenizer folder
    (60 pieces) and a corpus, all shared-vocabulary."""
    d = tmp_path_factory.mktemp("transplant")
    old_dir, tok_dir, corpus = d / "old", d / "tok", d / "corpus"
    for p in (old_dir, tok_dir, corpus):
        p.mkdir()
    train_spm([SOFTWARE * 4], str(old_dir / "spm.model"), 40)
    train_spm([(SOFTWARE + EVERYDAY) * 4], str(tok_dir / "spm.model"), 60)
    old_recipe = load_recipe(write_recipe(d / "old.yaml"), ["tokenizer.src_vocab=40", "tokenizer.tgt_vocab=40",
                                                           "tokenizer.shared=true"])
    torch.manual_seed(3)
    model = build_model(model_config(old_recipe, "en", "fr"))
    export.save(model, model_config(old_recipe, "en", "fr"), str(old_dir / "model.safetensors"),
                dtype=torch.float16)
    en, fr = EVERYDAY[:3] + SOFTWARE[:4], EVERYDAY[3:] + SOFTWARE[4:]
    for split in ("train", "dev"):
        (corpus / f"{split}.en").write_text("\n".join(en * 3) + "\n", encoding="utf-8")
        (corpus / f"{split}.fr").write_text("\n".join(fr * 3) + "\n", encoding="utf-8")
    new_recipe_path = write_recipe(d / "new.yaml", max_steps=2)
    new_sets = ["tokenizer.src_vocab=60", "tokenizer.tgt_vocab=60", "tokenizer.shared=true"]
    return dict(d=d, old_dir=str(old_dir), tok_dir=str(tok_dir), corpus=str(corpus),
                recipe_path=new_recipe_path, sets=new_sets, recipe=load_recipe(new_recipe_path, new_sets))


def test_each_row_is_the_old_row_or_the_mean_of_its_old_pieces(setup):
    out = str(setup["d"] / "out")
    counts = transplant_vocab.transplant(setup["old_dir"], setup["tok_dir"], setup["recipe"], out)
    old_model, _ = export.load(os.path.join(setup["old_dir"], "model.safetensors"))
    new_model, cfg = export.load(os.path.join(out, "model.safetensors"))
    assert cfg.src_vocab == cfg.tgt_vocab == 60 and cfg.name == "tiny"
    old_sp, new_sp = load_spm(os.path.join(setup["old_dir"], "spm.model")), load_spm(os.path.join(out, "spm.model"))
    old_w, new_w = old_model.state_dict(), new_model.state_dict()
    for name in new_w:
        if name not in transplant_vocab.VOCAB_TENSORS:
            assert torch.equal(new_w[name], old_w[name]), name
    same = composed = 0
    for i in range(60):
        piece = new_sp.id_to_piece(i)
        old_id = old_sp.piece_to_id(piece)
        if i < 4 or old_id != UNK_ID:  # the special ids, and a piece both vocabularies have
            ids = [i if i < 4 else old_id]
            same += 1
        else:  # the old tokenizer's split of the piece's text
            text = piece.replace("\u2581", " ")
            ids = [old_sp.piece_to_id(p) for p in old_sp.encode_as_pieces(text)]
            ids = [j for j in ids if j != UNK_ID and (piece.startswith("\u2581") or old_sp.id_to_piece(j) != "\u2581")]
            composed += 1
        for name in transplant_vocab.VOCAB_TENSORS:
            if piece.startswith("\u2581") or i < 4 or old_id != UNK_ID:
                want = old_w[name][ids or [UNK_ID]].mean(0)
                assert torch.allclose(new_w[name][i], want, atol=1e-6), (name, piece)
    assert same == counts["copied"] and composed == counts["composed"] + counts["unknown"]
    assert counts["copied"] > 4 and counts["composed"] > 4  # both kinds were exercised


def test_a_rabbit_starts_as_the_mean_of_its_old_pieces(setup):
    old_sp = load_spm(os.path.join(setup["old_dir"], "spm.model"))
    pieces = old_sp.encode_as_pieces(" rabbit")
    assert len(pieces) > 1  # the old vocabulary has no such word
    assert transplant_vocab.old_pieces_of("\u2581rabbit", old_sp) == [old_sp.piece_to_id(p) for p in pieces
                                                                      if old_sp.piece_to_id(p) != UNK_ID]
    # inside a word: no word-start piece of its own
    inside = transplant_vocab.old_pieces_of("bbit", old_sp)
    assert inside and "\u2581" not in [old_sp.id_to_piece(i) for i in inside]


def test_the_trainer_warm_starts_from_it_on_the_new_tokenizer(setup):
    out = str(setup["d"] / "warm")
    transplant_vocab.transplant(setup["old_dir"], setup["tok_dir"], setup["recipe"], out)
    run = str(setup["d"] / "run")
    st = Trainer(setup["recipe"], setup["corpus"], "en", "fr", run, quiet=True, tokenizers=setup["tok_dir"],
                 warm_start=out).run()
    assert st["step"] == 2 and st["warm_starts"] == [0]


def test_another_model_size_or_a_wrong_tokenizer_is_a_clear_error(setup):
    other = load_recipe(setup["recipe_path"], setup["sets"] + ["model.emb_size=12"])
    with pytest.raises(RecipeError, match="emb_size.*only the vocabulary can change"):
        transplant_vocab.transplant(setup["old_dir"], setup["tok_dir"], other, str(setup["d"] / "x"))
    sized = load_recipe(setup["recipe_path"], ["tokenizer.src_vocab=50", "tokenizer.tgt_vocab=50",
                                               "tokenizer.shared=true"])
    with pytest.raises(RecipeError, match="has 60 pieces, the recipe 50"):
        transplant_vocab.transplant(setup["old_dir"], setup["tok_dir"], sized, str(setup["d"] / "y"))
    cli = [sys.executable, os.path.join(MODELS, "transplant_vocab.py"), "--model", str(setup["d"] / "missing"),
           "--tokenizers", setup["tok_dir"], "--recipe", setup["recipe_path"], "--out", str(setup["d"] / "z")]
    r = subprocess.run(cli, capture_output=True, text=True)
    assert r.returncode == 2 and "transplant_vocab:" in r.stderr and "not found" in r.stderr
    assert "Traceback" not in r.stderr

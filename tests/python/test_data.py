"""Tokenizer ids and the length-bucketed batcher."""
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"))

from softalign_ref import data as D  # noqa: E402
from softalign_ref.tokenizer import Tokenizers, load_spm, train_spm, PAD_ID, UNK_ID, BOS_ID, EOS_ID  # noqa: E402

EN = ["the cat sits on the mat", "a dog runs in the park", "development files for the library",
      "this package contains the documentation", "the tool converts files", "small program"]
FR = ["le chat est assis sur le tapis", "un chien court dans le parc",
      "fichiers de développement pour la bibliothèque", "ce paquet contient la documentation",
      "l'outil convertit des fichiers", "petit programme"]


def make_corpus(tmp, n=60):
    src = [EN[i % len(EN)] + (" extra" * (i % 7)) for i in range(n)]
    tgt = [FR[i % len(FR)] + (" encore" * (i % 5)) for i in range(n)]
    for split in ("train", "dev"):
        with open(os.path.join(tmp, f"{split}.en"), "w", encoding="utf-8") as f:
            f.write("\n".join(src) + "\n")
        with open(os.path.join(tmp, f"{split}.fr"), "w", encoding="utf-8") as f:
            f.write("\n".join(tgt) + "\n")
    return src, tgt


@pytest.fixture(scope="module")
def tok(tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("corpus"))
    make_corpus(tmp)
    return Tokenizers.train(os.path.join(tmp, "model"), os.path.join(tmp, "train.en"),
                            os.path.join(tmp, "train.fr"), 40, 45)


def test_special_ids_fixed(tok):
    for sp in (tok.src, tok.tgt):
        assert (sp.pad_id(), sp.unk_id(), sp.bos_id(), sp.eos_id()) == (0, 1, 2, 3)
        assert (PAD_ID, UNK_ID, BOS_ID, EOS_ID) == (0, 1, 2, 3)
    assert tok.src.get_piece_size() == 40 and tok.tgt.get_piece_size() == 45


def test_sequences_follow_the_contract(tok):
    s = tok.encode_src("the cat")
    assert s[-1] == EOS_ID and EOS_ID not in s[:-1] and BOS_ID not in s
    t = tok.encode_tgt("le chat")
    assert BOS_ID not in t and EOS_ID not in t
    assert tok.decode_tgt(t + [EOS_ID]) == "le chat"
    assert tok.src.encode("zzqx ☃", out_type=int).count(UNK_ID) >= 1


def test_training_is_deterministic(tmp_path):
    tmp = str(tmp_path)
    make_corpus(tmp)
    a = train_spm(os.path.join(tmp, "train.en"), os.path.join(tmp, "a.model"), 40)
    b = train_spm(os.path.join(tmp, "train.en"), os.path.join(tmp, "b.model"), 40)
    assert open(a, "rb").read() == open(b, "rb").read()


def test_shared_vocabulary(tmp_path):
    tmp = str(tmp_path)
    make_corpus(tmp)
    t = Tokenizers.train(os.path.join(tmp, "m"), os.path.join(tmp, "train.en"), os.path.join(tmp, "train.fr"),
                         50, 50, shared=True)
    assert t.shared and os.path.isfile(os.path.join(tmp, "m", "spm.model"))
    assert Tokenizers.load(os.path.join(tmp, "m")).shared
    with pytest.raises(ValueError):
        Tokenizers.train(os.path.join(tmp, "m2"), os.path.join(tmp, "train.en"),
                         os.path.join(tmp, "train.fr"), 50, 60, shared=True)


def test_missing_files_are_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="train.en"):
        D.read_parallel(str(tmp_path), "train", "en", "fr")
    with pytest.raises(FileNotFoundError):
        load_spm(str(tmp_path / "nope.model"))
    (tmp_path / "train.en").write_text("a\nb\n")
    (tmp_path / "train.fr").write_text("a\n")
    with pytest.raises(ValueError, match="lines"):
        D.read_parallel(str(tmp_path), "train", "en", "fr")


def test_encode_pairs_filters_lengths(tok):
    pairs, dropped = D.encode_pairs(["the cat", "the cat " * 30, ""], ["le chat", "le chat", "vide"],
                                    tok, max_src_len=20, max_tgt_len=20)
    assert len(pairs) == 1 and dropped == 2
    assert pairs[0][0] == tok.encode_src("the cat")


def fake_pairs(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [([4] * int(torch.randint(2, 30, (1,), generator=g)) + [EOS_ID],
             [5] * int(torch.randint(1, 40, (1,), generator=g))) for _ in range(n)]


def test_batches_cover_every_pair_once_and_respect_the_budget():
    pairs = fake_pairs(500)
    batches = D.make_batches(pairs, max_tokens=200, seed=3, epoch=0)
    flat = sorted(i for b in batches for i in b)
    assert flat == list(range(500))
    for b in batches:
        longest = max(len(pairs[i][1]) for i in b) + 1
        assert longest * len(b) <= 200 or len(b) == 1
        # bucketed: lengths within a batch are close (sorted by target length)
        lens = [len(pairs[i][1]) for i in b]
        assert max(lens) - min(lens) <= 3


def test_batches_are_a_function_of_seed_and_epoch():
    pairs = fake_pairs(300)
    a = D.make_batches(pairs, 150, seed=1, epoch=2)
    assert a == D.make_batches(pairs, 150, seed=1, epoch=2)
    assert a != D.make_batches(pairs, 150, seed=1, epoch=3)
    assert a != D.make_batches(pairs, 150, seed=2, epoch=2)


def test_max_sentences():
    pairs = [([4, EOS_ID], [5])] * 50
    batches = D.make_batches(pairs, 10_000, seed=0, epoch=0, max_sentences=8)
    assert max(len(b) for b in batches) == 8 and sum(len(b) for b in batches) == 50


def test_collate_pads_and_shifts():
    pairs = [([7, 8, 9, EOS_ID], [10, 11]), ([7, EOS_ID], [12, 13, 14])]
    b = D.collate(pairs, [0, 1])
    assert b.src.tolist() == [[7, 8, 9, EOS_ID], [7, EOS_ID, PAD_ID, PAD_ID]]
    assert b.src_len.tolist() == [4, 2]
    assert b.tgt_in.tolist() == [[BOS_ID, 10, 11, PAD_ID], [BOS_ID, 12, 13, 14]]
    assert b.tgt_out.tolist() == [[10, 11, EOS_ID, PAD_ID], [12, 13, 14, EOS_ID]]
    assert b.n_tokens == 7 and b.size == 2

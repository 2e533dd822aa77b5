"""SentencePiece tokenizers: training with fixed special ids, loading, encoding.

Special ids are the same on both sides and recorded in every model's config:
pad=0, unk=1, bos=2, eos=3 (WEIGHTS_FORMAT.md). Training is deterministic: all
sentences are used in file order (no sampling, no shuffling), one thread, and a
fixed random seed.
"""
import io
import os

import sentencepiece as spm

PAD_ID, UNK_ID, BOS_ID, EOS_ID = 0, 1, 2, 3


def _iter_lines(inputs):
    for x in inputs:
        if isinstance(x, str):
            with open(x, encoding="utf-8") as f:
                for line in f:
                    yield line.rstrip("\n")
        else:
            yield from x


def train_spm(inputs, model_path, vocab_size, model_type="unigram",
              character_coverage=1.0, seed=1):
    """Trains one SentencePiece model; writes model_path (e.g. ".../src.spm.model").

    inputs: a file name, or a list of file names and/or lists of sentences. The
    sentences are streamed to the trainer and the model comes back in memory, so
    no temporary path ends up inside the model: the same data gives the same bytes.
    """
    if isinstance(inputs, str):
        inputs = [inputs]
    for f in inputs:
        if isinstance(f, str) and not os.path.isfile(f):
            raise FileNotFoundError(f"tokenizer training input not found: {f}")
    if not model_path.endswith(".model"):
        raise ValueError(f"model_path must end in .model: {model_path}")
    spm.set_random_generator_seed(seed)
    buf = io.BytesIO()
    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=_iter_lines(inputs),
            model_writer=buf,
            vocab_size=vocab_size,
            model_type=model_type,
            character_coverage=character_coverage,
            pad_id=PAD_ID, unk_id=UNK_ID, bos_id=BOS_ID, eos_id=EOS_ID,
            pad_piece="<pad>", unk_piece="<unk>", bos_piece="<s>", eos_piece="</s>",
            input_sentence_size=0,          # all sentences
            shuffle_input_sentence=False,   # input order: deterministic
            num_threads=1,
            hard_vocab_limit=True,
            minloglevel=2,
        )
    except RuntimeError as e:
        raise ValueError(f"SentencePiece training failed for {model_path}: {e}") from None
    os.makedirs(os.path.dirname(os.path.abspath(model_path)), exist_ok=True)
    tmp = model_path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(buf.getvalue())
    os.replace(tmp, model_path)
    return model_path


def load_spm(path):
    """Loads a SentencePiece model and checks the special ids are the fixed ones."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"SentencePiece model not found: {path}")
    sp = spm.SentencePieceProcessor(model_file=path)
    got = (sp.pad_id(), sp.unk_id(), sp.bos_id(), sp.eos_id())
    if got != (PAD_ID, UNK_ID, BOS_ID, EOS_ID):
        raise ValueError(f"{path}: special ids (pad, unk, bos, eos) are {got}, "
                         f"expected {(PAD_ID, UNK_ID, BOS_ID, EOS_ID)}")
    return sp


class Tokenizers:
    """The source and target SentencePiece models of one model directory."""

    def __init__(self, src, tgt, shared):
        self.src, self.tgt, self.shared = src, tgt, shared

    @staticmethod
    def paths(model_dir, shared):
        if shared:
            p = os.path.join(model_dir, "spm.model")
            return p, p
        return os.path.join(model_dir, "src.spm.model"), os.path.join(model_dir, "tgt.spm.model")

    @classmethod
    def load(cls, model_dir):
        """Loads spm.model (shared) or src.spm.model + tgt.spm.model from model_dir."""
        shared_path = os.path.join(model_dir, "spm.model")
        if os.path.isfile(shared_path):
            sp = load_spm(shared_path)
            return cls(sp, sp, True)
        s, t = cls.paths(model_dir, False)
        return cls(load_spm(s), load_spm(t), False)

    @classmethod
    def train(cls, model_dir, src_file, tgt_file, src_vocab, tgt_vocab, shared=False,
              model_type="unigram", character_coverage=1.0, seed=1):
        """Trains the tokenizers on the training split, into model_dir.

        src_file/tgt_file: file names or lists of sentences.
        """
        if shared:
            if src_vocab != tgt_vocab:
                raise ValueError("a shared vocabulary needs src_vocab == tgt_vocab")
            p, _ = cls.paths(model_dir, True)
            train_spm([src_file, tgt_file], p, src_vocab, model_type, character_coverage, seed)
        else:
            ps, pt = cls.paths(model_dir, False)
            train_spm([src_file], ps, src_vocab, model_type, character_coverage, seed)
            train_spm([tgt_file], pt, tgt_vocab, model_type, character_coverage, seed)
        return cls.load(model_dir)

    def encode_src(self, text):
        """Source ids: the pieces then EOS (WEIGHTS_FORMAT.md, Sequences)."""
        return self.src.encode(text, out_type=int) + [EOS_ID]

    def encode_tgt(self, text):
        """Target pieces without BOS/EOS (the batcher adds them)."""
        return self.tgt.encode(text, out_type=int)

    def decode_tgt(self, ids):
        return self.tgt.decode([i for i in ids if i not in (PAD_ID, BOS_ID, EOS_ID)])

"""Parallel corpus reading, encoding, length-bucketed batching and collation.

A corpus folder holds `{split}.{lang}` files, one sentence per line, aligned by
line. Batches are a pure function of (seed, epoch): sentences are sorted by
target length (then source length, random tie order), cut into batches of at
most `max_tokens` padded target tokens, and the batch order is shuffled. A run
can therefore resume at (epoch, batch index) and see exactly the same batches.
"""
import os
import random

import torch

from .tokenizer import PAD_ID, BOS_ID, EOS_ID


def corpus_files(corpus_dir, split, src_lang, tgt_lang):
    return (os.path.join(corpus_dir, f"{split}.{src_lang}"),
            os.path.join(corpus_dir, f"{split}.{tgt_lang}"))


def read_lines(path):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"corpus file not found: {path}")
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def read_parallel(corpus_dir, split, src_lang, tgt_lang, limit=None):
    """Returns (src_lines, tgt_lines) of one split; the first `limit` pairs if given."""
    fs, ft = corpus_files(corpus_dir, split, src_lang, tgt_lang)
    src, tgt = read_lines(fs), read_lines(ft)
    if len(src) != len(tgt):
        raise ValueError(f"{fs} has {len(src)} lines but {ft} has {len(tgt)}")
    if limit is not None:
        src, tgt = src[:limit], tgt[:limit]
    return src, tgt


def encode_pairs(src_lines, tgt_lines, tok, max_src_len, max_tgt_len):
    """Encodes pairs: source pieces + EOS, target pieces (no BOS/EOS).

    Pairs whose source (EOS included) is longer than max_src_len, or whose target
    (plus EOS) is longer than max_tgt_len, or that are empty, are dropped.
    Returns (pairs, dropped).
    """
    pairs, dropped = [], 0
    for s, t in zip(src_lines, tgt_lines):
        si, ti = tok.encode_src(s), tok.encode_tgt(t)
        if len(si) < 2 or not ti or len(si) > max_src_len or len(ti) + 1 > max_tgt_len:
            dropped += 1
            continue
        pairs.append((si, ti))
    return pairs, dropped


def make_batches(pairs, max_tokens, seed, epoch, max_sentences=None):
    """Length-bucketed batches (lists of pair indices) for one epoch.

    A batch's cost is its padded target size: len(batch) * (longest target + 1)
    must stay <= max_tokens (a single over-long pair still gets its own batch).
    Deterministic in (seed, epoch).
    """
    rng = random.Random(seed * 1_000_003 + epoch)
    order = list(range(len(pairs)))
    rng.shuffle(order)  # random order among equal lengths
    order.sort(key=lambda i: (len(pairs[i][1]), len(pairs[i][0])))  # stable sort
    batches, cur, cur_max = [], [], 0
    for i in order:
        t = len(pairs[i][1]) + 1
        new_max = max(cur_max, t)
        full = max_sentences is not None and len(cur) >= max_sentences
        if cur and (new_max * (len(cur) + 1) > max_tokens or full):
            batches.append(cur)
            cur, new_max = [], t
        cur.append(i)
        cur_max = new_max
    if cur:
        batches.append(cur)
    rng.shuffle(batches)
    return batches


class Batch:
    """Padded tensors of one batch.

    src [B,S] (pieces + EOS, pad 0), src_len [B], tgt_in [B,T] (BOS + pieces),
    tgt_out [B,T] (pieces + EOS), n_tokens: real target tokens (EOS included).
    """

    def __init__(self, src, src_len, tgt_in, tgt_out, n_tokens=None):
        self.src, self.src_len, self.tgt_in, self.tgt_out = src, src_len, tgt_in, tgt_out
        self.n_tokens = int((tgt_out != PAD_ID).sum()) if n_tokens is None else n_tokens
        self.size = src.shape[0]

    def to(self, device):
        """The same batch with its tensors on `device` (itself when they already are)."""
        if self.src.device == torch.device(device):
            return self
        return Batch(self.src.to(device), self.src_len.to(device), self.tgt_in.to(device),
                     self.tgt_out.to(device), self.n_tokens)


def collate(pairs, idx):
    """Builds a Batch from the pairs at indices idx (in the given order)."""
    b = len(idx)
    s_max = max(len(pairs[i][0]) for i in idx)
    t_max = max(len(pairs[i][1]) for i in idx) + 1
    src = torch.full((b, s_max), PAD_ID, dtype=torch.long)
    tgt_in = torch.full((b, t_max), PAD_ID, dtype=torch.long)
    tgt_out = torch.full((b, t_max), PAD_ID, dtype=torch.long)
    src_len = torch.empty(b, dtype=torch.long)
    for r, i in enumerate(idx):
        s, t = pairs[i]
        src[r, :len(s)] = torch.tensor(s)
        src_len[r] = len(s)
        tgt_in[r, 0] = BOS_ID
        tgt_in[r, 1:len(t) + 1] = torch.tensor(t)
        tgt_out[r, :len(t)] = torch.tensor(t)
        tgt_out[r, len(t)] = EOS_ID
    return Batch(src, src_len, tgt_in, tgt_out)

"""OpenNMT-py (3.x) RNN checkpoints → softalign's luong variant (tests/import/fixtures/README.md).

Read with torch alone: the checkpoint's `opt` is an argparse.Namespace and its `vocab` a
dict of token lists; classes of the onmt package that an older checkpoint may pickle are
read as stand-ins (and refused where they matter).
"""
import argparse
import pickle

import torch

from .common import Tensors, Toolkit, refuse


class _Stub:
    """Stands in for a class of a package that is not imported (onmt, torchtext)."""

    def __init__(self, *a, **kw):
        pass

    def __setstate__(self, state):
        self.__dict__.update(state if isinstance(state, dict) else {"state": state})


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if module.split(".")[0] in ("onmt", "torchtext", "pyonmttok"):
            return type(name, (_Stub,), {"__module__": module})
        return super().find_class(module, name)


class _PickleModule:
    """torch.load's pickle_module: pickle, with the stand-ins above."""
    Unpickler = _Unpickler
    load = pickle.load
    __name__ = "pickle"


def load(path):
    try:
        return torch.load(path, map_location="cpu", pickle_module=_PickleModule)
    except Exception as e:  # noqa: BLE001 - any unreadable file is one clear refusal
        refuse(path, f"cannot be read as an OpenNMT-py checkpoint ({type(e).__name__}: {e})")


def _opt(ckpt, path):
    opt = ckpt.get("opt") if isinstance(ckpt, dict) else None
    if opt is None:
        refuse(path, "no 'opt' in the checkpoint: not an OpenNMT-py model checkpoint")
    return opt if isinstance(opt, argparse.Namespace) else argparse.Namespace(**vars(opt))


def _vocab(ckpt, path):
    v = ckpt.get("vocab")
    if not isinstance(v, dict) or not all(isinstance(v.get(k), (list, tuple)) for k in ("src", "tgt")):
        refuse(path, "the vocabulary is not OpenNMT-py 3's token lists (vocab['src'], vocab['tgt']): "
                     "checkpoints of OpenNMT-py 2 and older (torchtext fields) are not supported")
    return [str(t) for t in v["src"]], [str(t) for t in v["tgt"]]


def read(path):
    ckpt = load(path)
    if not isinstance(ckpt, dict) or "model" not in ckpt:
        refuse(path, "no 'model' in the checkpoint: not an OpenNMT-py model checkpoint")
    opt = _opt(ckpt, path)
    g = lambda k, default=None: getattr(opt, k, default)  # noqa: E731

    def no(cond, option):
        if cond:
            refuse(path, f"OpenNMT-py option {option} is not supported by softalign's format")

    # ---- what the format cannot express --------------------------------------
    no(g("model_task", "seq2seq") != "seq2seq", f"model_task {g('model_task')} (only seq2seq)")
    no(g("model_type", "text") != "text", f"model_type {g('model_type')} (only text)")
    enc_type = g("encoder_type", "rnn")
    no(enc_type not in ("rnn", "brnn"), f"encoder_type {enc_type} (only rnn and brnn)")
    no(g("decoder_type", "rnn") != "rnn", f"decoder_type {g('decoder_type')} (only rnn)")
    rnn_type = g("rnn_type", "LSTM")
    no(rnn_type not in ("GRU", "LSTM"), f"rnn_type {rnn_type} (only GRU and LSTM)")
    att = g("global_attention", "general")
    no(att not in ("dot", "general", "mlp"), f"global_attention {att} (dot, general and mlp only)")
    no(g("global_attention_function", "softmax") != "softmax",
       f"global_attention_function {g('global_attention_function')} (softmax only)")
    no(g("generator_function", "softmax") != "softmax",
       f"generator_function {g('generator_function')} (softmax only)")
    no(bool(g("copy_attn", False)), "copy_attn (copy attention)")
    no(bool(g("coverage_attn", False)), "coverage_attn (coverage attention)")
    no(g("context_gate") not in (None, "", "none"), f"context_gate {g('context_gate')}")
    no((g("n_src_feats", 0) or 0) > 0 or bool(g("src_feats")), "source features (n_src_feats)")
    no(bool(g("position_encoding", False)), "position_encoding (position encoding of the embeddings)")
    no(bool(g("lora_layers")) or bool(g("lora_embedding", False)), "lora_layers / lora_embedding (LoRA)")
    no(bool(g("quant_layers")), "quant_layers (quantised layers)")
    m_src, m_tgt = g("src_word_vec_size", g("word_vec_size")), g("tgt_word_vec_size", g("word_vec_size"))
    no(m_src != m_tgt, f"src_word_vec_size {m_src} != tgt_word_vec_size {m_tgt} (one embedding size)")
    L_e, L_d = g("enc_layers", g("layers")), g("dec_layers", g("layers"))
    no(L_e != L_d, f"enc_layers {L_e} != dec_layers {L_d} (the decoder starts from the encoder's layers)")

    brnn = bool(g("brnn", enc_type == "brnn"))
    dirs = 2 if brnn else 1
    hid = g("hidden_size", g("rnn_size"))  # rnn_size: OpenNMT-py 2's name
    enc_h, d = g("enc_hid_size", hid), g("dec_hid_size", hid)
    n = enc_h // dirs
    no(dirs * n != d, f"enc_hid_size {enc_h} != dec_hid_size {d}")
    lstm = rnn_type == "LSTM"
    feed = bool(g("input_feed", 1))
    bridge = bool(g("bridge", False))

    P = {k: v.float() for k, v in ckpt["model"].items()}
    G = {k.split(".", 1)[1] if k.startswith("0.") else k: v.float()
         for k, v in (ckpt.get("generator") or {}).items()}
    if not G:
        G = {k[len("generator."):]: v for k, v in P.items() if k.startswith("generator.")}
    take = Tensors(P, path, "the checkpoint does not match its options")

    T = {}
    T["src_emb.weight"] = take("encoder.embeddings.make_embedding.emb_luts.0.weight")
    T["tgt_emb.weight"] = take("decoder.embeddings.make_embedding.emb_luts.0.weight")
    gates = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    for k in range(L_e):
        for sfx in ([""] + (["_reverse"] if brnn else [])):
            for w in gates:
                T[f"encoder.rnn.{w}_l{k}{sfx}"] = take(f"encoder.rnn.{w}_l{k}{sfx}")
    if bridge:
        T["bridge.weight"], T["bridge.bias"] = take("encoder.bridge.0.weight"), take("encoder.bridge.0.bias")
        if lstm:
            T["bridge_c.weight"], T["bridge_c.bias"] = take("encoder.bridge.1.weight"), take("encoder.bridge.1.bias")
    for k in range(L_d):
        for w in gates:
            # input feeding: StackedGRU/StackedLSTM cells; otherwise one nn.GRU/nn.LSTM
            T[f"decoder.rnn.{w}_l{k}"] = take(f"decoder.rnn.layers.{k}.{w}" if feed else f"decoder.rnn.{w}_l{k}")
    if att == "general":
        # OpenNMT scores (W_in h_t)ᵀ h_j; softalign h_tᵀ (W_a h_j): W_a = W_inᵀ
        T["attention.W_a.weight"] = take("decoder.attn.linear_in.weight").t().contiguous()
    elif att == "mlp":
        T["attention.W_q.weight"] = take("decoder.attn.linear_query.weight")
        T["attention.W_q.bias"] = take("decoder.attn.linear_query.bias")
        T["attention.W_k.weight"] = take("decoder.attn.linear_context.weight")
        T["attention.v_a.weight"] = take("decoder.attn.v.weight")
    T["decoder.W_c.weight"] = take("decoder.attn.linear_out.weight")  # [c_t ; h_t], as softalign
    if att == "mlp":
        T["decoder.W_c.bias"] = take("decoder.attn.linear_out.bias")
    if "weight" not in G or "bias" not in G:
        refuse(path, "no generator weight and bias (a generator other than Linear + softmax?)")
    T["generator.weight"], T["generator.bias"] = G["weight"], G["bias"]
    extra = take.unused(ignore=[k for k in P if k.startswith("generator.")])
    extra_g = sorted(set(G) - {"weight", "bias"})
    if extra or extra_g:
        refuse(path, f"tensors the format has no place for: {', '.join((extra + ['generator.' + k for k in extra_g])[:8])}")

    src_itos, tgt_itos = _vocab(ckpt, path)
    sp = list(g("default_specials", None) or ["<unk>", "<blank>", "<s>", "</s>"])
    specials = dict(zip(("unk", "pad", "bos", "eos"), sp))
    for side, itos in (("source", src_itos), ("target", tgt_itos)):
        for kind in ("unk", "pad", "bos", "eos"):
            if specials[kind] not in itos:
                refuse(path, f"the {side} vocabulary has no {specials[kind]} token")

    m = m_src
    config = {
        "variant": "luong", "score": att if att != "mlp" else "concat", "scope": "global", "window_d": 0,
        "input_feeding": feed, "enc_layers": L_e, "dec_layers": L_d, "emb_size": m, "enc_hidden": n,
        "dec_hidden": d, "att_hidden": d if att == "mlp" else 0, "maxout_size": 0, "max_src_len": 1024,
        "cell": "lstm" if lstm else "gru", "enc_directions": dirs, "reverse_source": False,
        "source_eos": False,  # OpenNMT's source ids are the pieces only
        "decoder_init": "relu-final" if bridge else "final",
        "query_bias": att == "mlp", "combine_bias": att == "mlp",
        "combine_tanh": att != "mlp",  # GlobalAttention: tanh for dot and general only
        # onmt_translate's defaults: beam 5, length_penalty avg with alpha 1.0 ((t + 2)^α);
        # the length cap is -max_length 250 with -max_length_ratio 0 (its default cap,
        # min(250, 1.25 x the batch's longest source + 5), depends on the batch)
        "decoding": {"beam": 5, "alpha": 1.0, "beta": 0.0, "max_len_a": 0.0, "max_len_b": 250.0, "nbest": 1,
                     "beam_rules": "opennmt"},
    }
    return Toolkit("opennmt-py", path, config, T, src_itos, tgt_itos, specials)

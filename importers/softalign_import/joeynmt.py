"""JoeyNMT (2.x) recurrent checkpoints → softalign's luong variant
(tests/import/fixtures/README.md). The checkpoint holds `model_state`; the architecture
comes from the toolkit's YAML config, the vocabularies from its vocabulary files.
"""
import math
import os

import torch

from .common import Tensors, Toolkit, refuse


def _read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def _yaml(path, ckpt):
    try:
        import yaml
    except ImportError:
        refuse(ckpt, "reading a JoeyNMT config needs PyYAML (pip install pyyaml)")
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def find_config(ckpt, config):
    if config:
        return config
    for name in ("config.yaml", "config.yml"):
        p = os.path.join(os.path.dirname(os.path.abspath(ckpt)), name)
        if os.path.isfile(p):
            return p
    refuse(ckpt, "a JoeyNMT checkpoint needs its training config: --config CONFIG.yaml")


def read(path, config=None, src_vocab=None, tgt_vocab=None):
    try:
        ckpt = torch.load(path, map_location="cpu")
    except Exception as e:  # noqa: BLE001
        refuse(path, f"cannot be read as a JoeyNMT checkpoint ({type(e).__name__}: {e})")
    if not isinstance(ckpt, dict) or "model_state" not in ckpt:
        refuse(path, "no 'model_state' in the checkpoint: not a JoeyNMT checkpoint")
    cfg_path = find_config(path, config)
    cfg = _yaml(cfg_path, path)
    mcfg = cfg.get("model", {}) or {}
    enc, dec = mcfg.get("encoder", {}) or {}, mcfg.get("decoder", {}) or {}

    def no(cond, option):
        if cond:
            refuse(path, f"JoeyNMT option {option} is not supported by softalign's format")

    no(enc.get("type", "recurrent") != "recurrent", f"encoder.type {enc.get('type')} (recurrent only)")
    no(dec.get("type", "transformer") != "recurrent",
       f"decoder.type {dec.get('type', 'transformer (the default)')} (recurrent only)")
    cell_e, cell_d = enc.get("rnn_type", "gru"), dec.get("rnn_type", "gru")
    no(cell_e not in ("gru", "lstm"), f"encoder.rnn_type {cell_e}")
    no(cell_e != cell_d, f"encoder.rnn_type {cell_e} with decoder.rnn_type {cell_d} (one cell type)")
    att = dec.get("attention", "bahdanau")
    no(att not in ("bahdanau", "luong"), f"decoder.attention {att}")
    no(dec.get("activation", "tanh") != "tanh", f"decoder.activation {dec.get('activation')} (the bridge's; tanh only)")
    m_e = (enc.get("embeddings") or {}).get("embedding_dim")
    m_d = (dec.get("embeddings") or {}).get("embedding_dim")
    no(m_e != m_d, f"embedding_dim {m_e} (encoder) != {m_d} (decoder) (one embedding size)")
    specials_cfg = (cfg.get("data", {}) or {}).get("special_symbols", {}) or {}
    no(specials_cfg.get("sep_token") is not None or bool(specials_cfg.get("lang_tags")),
       "data.special_symbols sep_token / lang_tags (the search would ban them)")
    bidir = bool(enc.get("bidirectional", True))
    dirs = 2 if bidir else 1
    n, d = enc.get("hidden_size", 1), dec.get("hidden_size", 1)
    L_e, L_d = enc.get("num_layers", 1), dec.get("num_layers", 1)
    feed = bool(dec.get("input_feeding", True))
    init = dec.get("init_hidden", "bridge")
    if init == "bridge":
        decoder_init = "tanh-final"
    elif init == "last":
        # JoeyNMT: the top layer's final state [→h ; ←h], or its forward half when that is
        # twice the decoder's size; the same for every layer
        no(not (n == d), f"decoder.init_hidden last with encoder hidden_size {n} != decoder hidden_size {d}")
        decoder_init = "last-forward"
    else:
        decoder_init = "zero"  # JoeyNMT: anything else starts from zeros

    P = {k: v.float() for k, v in ckpt["model_state"].items()}
    take = Tensors(P, path, f"the checkpoint does not match {cfg_path}")

    T = {}
    T["src_emb.weight"] = take("src_embed.lut.weight")
    T["tgt_emb.weight"] = take("trg_embed.lut.weight")
    for side, key in (("src_emb.weight", enc), ("tgt_emb.weight", dec)):
        if (key.get("embeddings") or {}).get("scale", False):  # emb · sqrt(dim), folded into the rows
            T[side] = T[side] * math.sqrt(T[side].shape[1])
    gates = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    for k in range(L_e):
        for sfx in ([""] + (["_reverse"] if bidir else [])):
            for w in gates:
                T[f"encoder.rnn.{w}_l{k}{sfx}"] = take(f"encoder.rnn.{w}_l{k}{sfx}")
    for k in range(L_d):
        for w in gates:
            T[f"decoder.rnn.{w}_l{k}"] = take(f"decoder.rnn.{w}_l{k}")
    if decoder_init == "tanh-final":
        # one state for every decoder layer: the [d, A] weight tiled L_d times
        T["bridge.weight"] = take("decoder.bridge_layer.weight").repeat(L_d, 1)
        T["bridge.bias"] = take("decoder.bridge_layer.bias").repeat(L_d)
    if att == "bahdanau":  # additive, after the state update: softalign's luong concat, no biases
        T["attention.W_q.weight"] = take("decoder.attention.query_layer.weight")
        T["attention.W_k.weight"] = take("decoder.attention.key_layer.weight")
        T["attention.v_a.weight"] = take("decoder.attention.energy_layer.weight")
    else:  # luong: h_tᵀ (W h_j) = softalign's general
        T["attention.W_a.weight"] = take("decoder.attention.key_layer.weight")
    W = take("decoder.att_vector_layer.weight")  # over [h_t ; c_t]: swap to [c_t ; h_t]
    T["decoder.W_c.weight"] = torch.cat([W[:, d:], W[:, :d]], dim=1).contiguous()
    T["decoder.W_c.bias"] = take("decoder.att_vector_layer.bias")
    T["generator.weight"] = take("decoder.output_layer.weight")
    T["generator.bias"] = torch.zeros(T["generator.weight"].shape[0])  # JoeyNMT's has none
    extra = take.unused()
    if extra:
        refuse(path, f"tensors the format has no place for: {', '.join(extra[:8])}")

    data = cfg.get("data", {}) or {}
    here = os.path.dirname(os.path.abspath(path))

    def vocab_file(given, side, default):
        if given:
            return given
        f = (data.get(side) or {}).get("voc_file")
        if f and os.path.isfile(f):
            return f
        p = os.path.join(here, default)
        if os.path.isfile(p):
            return p
        refuse(path, f"no {side} vocabulary file: give --{'src' if side == 'src' else 'tgt'}-vocab "
                     f"(JoeyNMT's {default}; {side}.voc_file of the config is {f or 'unset'})")

    src_itos = _read_lines(vocab_file(src_vocab, "src", "src_vocab.txt"))
    tgt_itos = _read_lines(vocab_file(tgt_vocab, "trg", "trg_vocab.txt"))
    for side, itos, w in (("source", src_itos, T["src_emb.weight"]), ("target", tgt_itos, T["tgt_emb.weight"])):
        if len(itos) != w.shape[0]:
            refuse(path, f"the {side} vocabulary file has {len(itos)} tokens, the checkpoint {w.shape[0]} rows")
    specials = {k: specials_cfg.get(f"{k}_token", dflt)
                for k, dflt in (("unk", "<unk>"), ("pad", "<pad>"), ("bos", "<s>"), ("eos", "</s>"))}
    for side, itos in (("source", src_itos), ("target", tgt_itos)):
        for kind, tok in specials.items():
            if tok not in itos:
                refuse(path, f"the {side} vocabulary has no {tok} token")

    test = cfg.get("testing", {}) or {}
    max_out = test.get("max_output_length", -1)
    alpha = test.get("beam_alpha", test.get("alpha", -1))
    config = {
        "variant": "luong", "score": "concat" if att == "bahdanau" else "general", "scope": "global",
        "window_d": 0, "input_feeding": feed, "enc_layers": L_e, "dec_layers": L_d, "emb_size": m_e,
        "enc_hidden": n, "dec_hidden": d, "att_hidden": d if att == "bahdanau" else 0, "maxout_size": 0,
        "max_src_len": 1024, "cell": cell_e, "enc_directions": dirs, "reverse_source": False,
        "source_eos": True,  # JoeyNMT appends EOS to the source
        "decoder_init": decoder_init, "query_bias": False, "combine_bias": True, "combine_tanh": True,
        "decoding": {
            "beam": int(test.get("beam_size", 5) or 5),
            "alpha": float(alpha) if alpha and alpha > 0 else 0.0,  # JoeyNMT: alpha <= 0 = no penalty
            "beta": 0.0,
            # testing.max_output_length, else JoeyNMT's default 1.5 x the source (EOS
            # included; the batch's longest source when batched)
            "max_len_a": 0.0 if max_out and max_out > 0 else 1.5,
            "max_len_b": float(max_out) if max_out and max_out > 0 else 0.0,
            "nbest": 1, "beam_rules": "joeynmt"},
    }
    tk = Toolkit("joeynmt", path, config, T, src_itos, tgt_itos, specials)
    tk.src_lang = (data.get("src") or {}).get("lang", "")
    tk.tgt_lang = (data.get("trg") or {}).get("lang", "")
    return tk

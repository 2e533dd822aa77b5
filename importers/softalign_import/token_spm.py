"""A SentencePiece model file that only lists a toolkit's tokens by id, for models
imported with --pretokenized (WEIGHTS_FORMAT.md `pretokenized`).

The runtime never asks such a model to cut text: it cuts at whitespace and looks each
token up (piece i is token i, verbatim), and joins output tokens with spaces. The file is
a serialized ModelProto (sentencepiece_model.proto), written here field by field: the
protobuf classes shipped with SentencePiece do not load under every protobuf version.
The toolkit's specials get SentencePiece's types: unk UNKNOWN, pad/bos/eos CONTROL.
"""
import struct

# sentencepiece_model.proto: SentencePiece.Type, TrainerSpec.ModelType
NORMAL, UNKNOWN, CONTROL = 1, 2, 3
UNIGRAM = 1


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _key(field, wire):
    return _varint(field << 3 | wire)


def _bytes(field, b):
    return _key(field, 2) + _varint(len(b)) + b


def _int(field, v):
    return _key(field, 0) + _varint(v if v >= 0 else v + (1 << 64))


def _float(field, v):
    return _key(field, 5) + struct.pack("<f", v)


def token_model(tokens, specials):
    """The ModelProto bytes listing `tokens` by id. `specials`: kind ("unk", "pad", "bos",
    "eos") → the token string of that kind (unk required)."""
    if len(set(tokens)) != len(tokens):
        raise ValueError("a token is listed twice")
    if any(not t or any(c.isspace() for c in t) for t in tokens):
        raise ValueError("a token is empty or holds whitespace: it cannot be read from space-separated text")
    kind_of = {t: k for k, t in specials.items()}
    out = bytearray()
    for tok in tokens:
        kind = kind_of.get(tok)
        typ = UNKNOWN if kind == "unk" else CONTROL if kind else NORMAL
        out += _bytes(1, _bytes(1, tok.encode("utf-8")) + _float(2, 0.0) + _int(3, typ))
    ids = {k: tokens.index(t) for k, t in specials.items()}
    spec = _int(3, UNIGRAM) + _int(4, len(tokens))
    for field, kind in ((40, "unk"), (41, "bos"), (42, "eos"), (43, "pad")):
        spec += _int(field, ids.get(kind, -1))
    for field, kind in ((45, "unk"), (46, "bos"), (47, "eos"), (48, "pad")):
        if kind in specials:
            spec += _bytes(field, specials[kind].encode("utf-8"))
    out += _bytes(2, spec)
    # NormalizerSpec: identity (no normalisation), the defaults otherwise
    out += _bytes(3, _bytes(1, b"identity"))
    return bytes(out)

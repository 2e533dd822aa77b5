"""The model configuration: exactly the config keys of WEIGHTS_FORMAT.md.

`ModelConfig` is what the safetensors metadata carries as JSON. `dropout` is a
training-only field (harmless in the metadata; the runtime ignores it).
"""
import dataclasses
import json
from dataclasses import dataclass, field

FORMAT = "softalign-weights"
FORMAT_VERSION = 1

VARIANTS = ("encdec", "bahdanau", "luong")
SCORES = ("dot", "general", "concat", "location")
SCOPES = ("global", "local-m", "local-p")


def default_decoding():
    return {"beam": 5, "alpha": 0.6, "beta": 0.0, "max_len_a": 1.5, "max_len_b": 10.0, "nbest": 1}


@dataclass
class ModelConfig:
    variant: str = "bahdanau"
    score: str = "none"
    scope: str = "global"
    window_d: int = 0
    input_feeding: bool = False
    enc_layers: int = 1
    dec_layers: int = 1
    emb_size: int = 256
    enc_hidden: int = 256
    dec_hidden: int = 256
    att_hidden: int = 256
    maxout_size: int = 256
    src_vocab: int = 8000
    tgt_vocab: int = 8000
    shared_vocab: bool = False
    pad_id: int = 0
    unk_id: int = 1
    bos_id: int = 2
    eos_id: int = 3
    max_src_len: int = 128
    decoding: dict = field(default_factory=default_decoding)
    src_lang: str = "en"
    tgt_lang: str = "fr"
    name: str = "model"
    format: str = FORMAT
    format_version: int = FORMAT_VERSION
    dropout: float = 0.0  # training only

    # ---- serialisation -------------------------------------------------

    def to_dict(self):
        d = dataclasses.asdict(self)
        d["decoding"] = dict(self.decoding)
        return d

    @classmethod
    def from_dict(cls, d):
        """Builds a config from a dict; keys that are not config fields (metrics,
        corpus, ...) are ignored. Missing decoding options take their defaults."""
        if not isinstance(d, dict):
            raise ValueError(f"config must be a JSON object, got {type(d).__name__}")
        names = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in d.items() if k in names}
        dec = default_decoding()
        dec.update(kw.get("decoding") or {})
        kw["decoding"] = dec
        return cls(**kw)

    def to_json(self, **kw):
        return json.dumps(self.to_dict(), **kw)

    @classmethod
    def from_json(cls, s):
        try:
            d = json.loads(s)
        except json.JSONDecodeError as e:
            raise ValueError(f"config is not valid JSON: {e}") from None
        return cls.from_dict(d)

    # ---- checks ---------------------------------------------------------

    def validate(self):
        """Raises ValueError with a clear message if the config is inconsistent."""
        def need(cond, msg):
            if not cond:
                raise ValueError(f"invalid model config: {msg}")

        need(self.format == FORMAT, f"format must be {FORMAT!r}, got {self.format!r}")
        need(self.format_version == FORMAT_VERSION,
             f"format_version {self.format_version} is not supported (expected {FORMAT_VERSION})")
        need(self.variant in VARIANTS, f"variant must be one of {VARIANTS}, got {self.variant!r}")
        for k in ("enc_layers", "dec_layers", "emb_size", "enc_hidden", "dec_hidden",
                  "src_vocab", "tgt_vocab", "max_src_len"):
            v = getattr(self, k)
            need(isinstance(v, int) and not isinstance(v, bool) and v >= 1, f"{k} must be an integer >= 1, got {v!r}")
        for k in ("window_d", "att_hidden", "maxout_size"):
            v = getattr(self, k)
            need(isinstance(v, int) and not isinstance(v, bool) and v >= 0, f"{k} must be an integer >= 0, got {v!r}")
        for k in ("pad_id", "unk_id", "bos_id", "eos_id"):
            v = getattr(self, k)
            need(isinstance(v, int) and 0 <= v < min(self.src_vocab, self.tgt_vocab),
                 f"{k} = {v!r} is outside the vocabularies")
        need(len({self.pad_id, self.unk_id, self.bos_id, self.eos_id}) == 4, "special ids must be distinct")
        need(not self.shared_vocab or self.src_vocab == self.tgt_vocab,
             "shared_vocab needs src_vocab == tgt_vocab")
        need(0.0 <= self.dropout < 1.0, f"dropout must be in [0, 1), got {self.dropout}")

        if self.variant == "luong":
            need(self.score in SCORES, f"luong score must be one of {SCORES}, got {self.score!r}")
            need(self.scope in SCOPES, f"luong scope must be one of {SCOPES}, got {self.scope!r}")
            need(self.maxout_size == 0, "luong has no maxout layer: maxout_size must be 0")
            if self.score == "dot":
                need(self.dec_hidden == 2 * self.enc_hidden,
                     f"dot score needs dec_hidden == 2 * enc_hidden ({self.dec_hidden} != {2 * self.enc_hidden})")
            if self.score == "location":
                need(self.scope == "global", "the location score works with global scope only")
            if self.scope == "global":
                need(self.window_d == 0, "window_d must be 0 with global scope")
            else:
                need(self.window_d >= 1, f"{self.scope} scope needs window_d >= 1")
            uses_a = self.score == "concat" or self.scope == "local-p"
            if uses_a:
                need(self.att_hidden >= 1, "concat score and local-p scope need att_hidden >= 1")
            else:
                need(self.att_hidden == 0, "att_hidden must be 0 when neither concat nor local-p is used")
        else:
            need(self.score == "none", f"{self.variant} has no score: score must be 'none'")
            need(self.scope == "global", f"{self.variant} has no local attention: scope must be 'global'")
            need(self.window_d == 0, f"{self.variant}: window_d must be 0")
            need(not self.input_feeding, "input_feeding is a luong option")
            need(self.maxout_size >= 1, f"{self.variant} needs maxout_size >= 1")
            if self.variant == "bahdanau":
                need(self.att_hidden >= 1, "bahdanau needs att_hidden >= 1")
            else:
                need(self.att_hidden == 0, "encdec has no attention: att_hidden must be 0")

        dec = self.decoding
        need(isinstance(dec, dict), "decoding must be an object")
        for k in ("beam", "nbest"):
            need(isinstance(dec.get(k), int) and dec[k] >= 1, f"decoding.{k} must be an integer >= 1")
        need(dec["nbest"] <= dec["beam"], "decoding.nbest must be <= decoding.beam")
        for k in ("alpha", "beta", "max_len_a", "max_len_b"):
            need(isinstance(dec.get(k), (int, float)) and dec[k] >= 0, f"decoding.{k} must be a number >= 0")
        return self

"""The model configuration: exactly the config keys of WEIGHTS_FORMAT.md.

`ModelConfig` is what the safetensors metadata carries as JSON. `dropout` is a
training-only field (harmless in the metadata; the runtime ignores it).

Format version 2 adds the keys of V2_DEFAULTS (and `decoding.beam_rules`). A config
whose version-2 keys all have their defaults computes what version 1 computes, and
`to_dict` writes it as version 1, without those keys; any other is written as
version 2 with all of them.
"""
import dataclasses
import json
from dataclasses import dataclass, field

FORMAT = "softalign-weights"
FORMAT_VERSION = 2  # the newest version read and written (1 is read too)

CELLS = ("gru", "lstm")
DECODER_INITS = ("tanh-backward", "tanh-final", "final", "relu-final", "last-forward", "zero")
BEAM_RULES = ("softalign", "opennmt", "joeynmt")

# The keys of format version 2 and their defaults (what version 1 computes).
# decoder_init's default depends on the variant: None here, resolved by init_kind().
V2_DEFAULTS = {"cell": "gru", "enc_directions": 2, "reverse_source": False, "source_eos": True,
               "decoder_init": None, "query_bias": False, "combine_bias": False, "combine_tanh": True}


def default_decoder_init(variant):
    return "tanh-final" if variant == "encdec" else "tanh-backward"

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
    # written by to_dict as the lowest version that expresses the config (not compared)
    format_version: int = field(default=FORMAT_VERSION, compare=False)
    dropout: float = 0.0  # training only
    # ---- format version 2 (V2_DEFAULTS) ----
    cell: str = "gru"
    enc_directions: int = 2
    reverse_source: bool = False
    source_eos: bool = True
    decoder_init: str = None  # None: the variant's default (init_kind)
    query_bias: bool = False
    combine_bias: bool = False
    combine_tanh: bool = True

    def __post_init__(self):
        # the variant's default decoder_init is the same config as none given
        if self.decoder_init is not None and self.decoder_init == default_decoder_init(self.variant):
            self.decoder_init = None
        if isinstance(self.decoding, dict) and self.decoding.get("beam_rules") == "softalign":
            self.decoding = {k: v for k, v in self.decoding.items() if k != "beam_rules"}

    # ---- version 2 helpers ---------------------------------------------------

    def init_kind(self):
        """decoder_init with the variant's default resolved."""
        return self.decoder_init or default_decoder_init(self.variant)

    def beam_rules(self):
        return (self.decoding or {}).get("beam_rules", "softalign")

    @property
    def ann_size(self):
        """A = enc_directions * n, the width of the annotations."""
        return self.enc_directions * self.enc_hidden

    def is_v1(self):
        """True when every version-2 key has its default (the config is a version-1 one)."""
        for k, v in V2_DEFAULTS.items():
            cur = getattr(self, k)
            if k == "decoder_init":
                if cur is not None and cur != default_decoder_init(self.variant):
                    return False
            elif cur != v:
                return False
        return self.beam_rules() == "softalign"

    # ---- serialisation -------------------------------------------------

    def to_dict(self):
        """The metadata JSON object: version 1 (no version-2 key) when the config is a
        version-1 one, else version 2 with every version-2 key (decoder_init resolved)."""
        d = dataclasses.asdict(self)
        d["decoding"] = dict(self.decoding)
        if self.is_v1():
            for k in V2_DEFAULTS:
                del d[k]
            d["decoding"].pop("beam_rules", None)
            d["format_version"] = 1
        else:
            d["decoder_init"] = self.init_kind()
            d["format_version"] = 2
        return d

    @classmethod
    def from_dict(cls, d):
        """Builds a config from a dict; keys that are not config fields (metrics,
        corpus, ...) are ignored. Missing decoding options take their defaults."""
        if not isinstance(d, dict):
            raise ValueError(f"config must be a JSON object, got {type(d).__name__}")
        names = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in d.items() if k in names}
        if d.get("format_version") == 1:
            v2 = sorted(k for k in V2_DEFAULTS if k in d)
            if isinstance(d.get("decoding"), dict) and "beam_rules" in d["decoding"]:
                v2.append("decoding.beam_rules")
            if v2:
                raise ValueError(f"invalid model config: format_version 1 has no key {', '.join(v2)} "
                                 "(a version-2 key: set format_version 2)")
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
        need(self.format_version in (1, 2),
             f"format_version {self.format_version} is not supported (expected 1 or 2)")
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
                if self.enc_directions == 2:
                    need(self.dec_hidden == 2 * self.enc_hidden,
                         f"dot score needs dec_hidden == 2 * enc_hidden ({self.dec_hidden} != {2 * self.enc_hidden})")
                else:
                    need(self.dec_hidden == self.ann_size,
                         f"dot score needs dec_hidden == enc_directions * enc_hidden "
                         f"({self.dec_hidden} != {self.ann_size})")
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

        self._validate_v2(need)

        dec = self.decoding
        need(isinstance(dec, dict), "decoding must be an object")
        for k in ("beam", "nbest"):
            need(isinstance(dec.get(k), int) and dec[k] >= 1, f"decoding.{k} must be an integer >= 1")
        need(dec["nbest"] <= dec["beam"], "decoding.nbest must be <= decoding.beam")
        for k in ("alpha", "beta", "max_len_a", "max_len_b"):
            need(isinstance(dec.get(k), (int, float)) and dec[k] >= 0, f"decoding.{k} must be a number >= 0")
        need(self.beam_rules() in BEAM_RULES,
             f"decoding.beam_rules must be one of {BEAM_RULES}, got {self.beam_rules()!r}")
        if self.beam_rules() != "softalign":
            need(dec["nbest"] == 1, f"decoding.beam_rules {self.beam_rules()} has no n-best: nbest must be 1")
            need(dec["beta"] == 0, f"decoding.beam_rules {self.beam_rules()} has no coverage penalty: beta must be 0")
            need(not dec.get("block_repeats"),
                 f"decoding.beam_rules {self.beam_rules()} has no repetition blocking: block_repeats must be 0")
        return self

    def _validate_v2(self, need):
        """The version-2 keys and their impossible combinations (WEIGHTS_FORMAT.md)."""
        need(self.cell in CELLS, f"cell must be one of {CELLS}, got {self.cell!r}")
        need(self.enc_directions in (1, 2) and not isinstance(self.enc_directions, bool),
             f"enc_directions must be 1 or 2, got {self.enc_directions!r}")
        for k in ("reverse_source", "source_eos", "query_bias", "combine_bias", "combine_tanh"):
            need(isinstance(getattr(self, k), bool), f"{k} must be true or false, got {getattr(self, k)!r}")
        need(self.decoder_init is None or self.decoder_init in DECODER_INITS,
             f"decoder_init must be one of {DECODER_INITS}, got {self.decoder_init!r}")
        need(not (self.reverse_source and self.enc_directions == 2),
             "reverse_source needs a one-way encoder (enc_directions 1), got enc_directions 2")
        init, A, d = self.init_kind(), self.ann_size, self.dec_hidden
        if init == "tanh-backward":
            need(self.enc_directions == 2,
                 "decoder_init tanh-backward reads the backward direction: it needs enc_directions 2 "
                 "(a one-way encoder can use tanh-final, final, last-forward or zero)")
        if init in ("final", "relu-final"):
            need(self.enc_layers == self.dec_layers,
                 f"decoder_init {init} needs enc_layers == dec_layers ({self.enc_layers} != {self.dec_layers})")
            need(A == d, f"decoder_init {init} needs enc_directions * enc_hidden == dec_hidden ({A} != {d})")
        if init == "last-forward":
            need(self.enc_hidden == d,
                 f"decoder_init last-forward needs enc_hidden == dec_hidden ({self.enc_hidden} != {d})")
        if self.query_bias:
            need(self.variant == "luong" and self.score == "concat", "query_bias needs the luong concat score")
        for k in ("combine_bias", "combine_tanh"):
            if getattr(self, k) != V2_DEFAULTS[k]:
                need(self.variant == "luong", f"{k} is a luong option (the attentional layer W_c)")

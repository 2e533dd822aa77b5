# Types of the softalign package (the compiled module softalign._softalign,
# platforms/python/softalign_python.cpp). tests/python/test_typing.py keeps
# them equal to the module's: stubtest, and the Translator's keywords against
# option_defaults().
from collections.abc import Iterator, Sequence
from types import TracebackType
from typing import Any, Literal, overload

import numpy as np
import numpy.typing as npt

__version__: str

class Error(RuntimeError):
    """A failed load or translation; its text is the library's status ("invalid_argument: ...")."""

class Cancelled(Error):
    """Translator.cancel() (or Ctrl-C) stopped the call."""

class DeadlineExceeded(Error):
    """The call ran past its timeout_ms."""

class Model:
    @staticmethod
    def load(path: str, *, copy: bool = False) -> Model: ...
    @staticmethod
    def from_bytes(data: bytes) -> Model: ...
    @property
    def config(self) -> dict[str, Any]: ...
    @property
    def name(self) -> str: ...
    @property
    def src_lang(self) -> str: ...
    @property
    def tgt_lang(self) -> str: ...
    @property
    def weight_type(self) -> str: ...
    @property
    def file_bytes(self) -> int: ...
    @property
    def schema_version(self) -> int: ...
    @property
    def has_shortlist(self) -> bool: ...
    @property
    def confidence_calibrated(self) -> bool: ...
    @property
    def confidence_fitted_on(self) -> str: ...
    @property
    def metadata(self) -> dict[str, str]: ...
    def encode(self, text: str) -> tuple[list[int], list[str]]: ...
    def decode(self, ids: Sequence[int]) -> str: ...

class Hypothesis:
    @property
    def text(self) -> str: ...
    @property
    def pieces(self) -> list[str]: ...
    @property
    def ids(self) -> list[int]: ...
    @property
    def score(self) -> float: ...
    @property
    def log_prob(self) -> float: ...
    @property
    def placeholders_repaired(self) -> bool: ...
    @property
    def confidence(self) -> float: ...
    @property
    def confidence_features(self) -> dict[str, float]: ...
    @property
    def attention(self) -> npt.NDArray[np.float32] | None: ...
    @property
    def alignment(self) -> list[tuple[int, int]]: ...
    @property
    def word_alignment(self) -> list[tuple[int, int]]: ...
    @property
    def pharaoh(self) -> str: ...

class Result:
    @property
    def hypotheses(self) -> list[Hypothesis]: ...
    @property
    def source_pieces(self) -> list[str]: ...
    @property
    def source_ids(self) -> list[int]: ...
    @property
    def protected_spans(self) -> list[tuple[int, int]]: ...
    @property
    def glossary_matches(self) -> list[tuple[int, int]]: ...
    @property
    def text(self) -> str: ...

class TranslationResult:
    """An item of Translator.translate_batch (CTranslate2's names)."""
    @property
    def hypotheses(self) -> list[str]: ...
    @property
    def scores(self) -> list[float]: ...
    @property
    def confidences(self) -> list[float]: ...
    @property
    def alignment(self) -> list[list[tuple[int, int]]]: ...

class StreamEvent:
    @property
    def kind(self) -> Literal["piece", "sentence"]: ...
    @property
    def index(self) -> int: ...
    @property
    def id(self) -> int: ...
    @property
    def text(self) -> str: ...

class TranslationStream(Iterator[StreamEvent]):
    def __iter__(self) -> TranslationStream: ...
    def __next__(self) -> StreamEvent: ...
    def close(self) -> None: ...
    def __enter__(self) -> TranslationStream: ...
    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...
    @property
    def result(self) -> Result | None: ...

class Translator:
    # The keywords are the library's options (option_defaults(): each one's default; None: the model's).
    def __init__(
        self,
        model: Model | Sequence[Model],
        *,
        beam: int | None = ...,
        nbest: int | None = ...,
        alpha: float | None = ...,
        beta: float | None = ...,
        max_len_a: float | None = ...,
        max_len_b: float | None = ...,
        block_repeats: int | None = ...,
        beam_rules: Literal["softalign", "opennmt", "joeynmt"] | None = ...,
        timeout_ms: int = ...,
        alignment: bool = ...,
        max_source_tokens: int = ...,
        split_long_input: bool = ...,
        replace_invalid_utf8: bool = ...,
        copy_through: bool = ...,
        repair_placeholders: bool = ...,
        glossary: Sequence[tuple[str, str]] = ...,
        max_batch: int = ...,
        threads: int = ...,
        device: Literal["cpu", "auto", "vulkan"] = ...,
        use_shortlist: bool = ...,
        kernels: str = ...,
        max_arena_bytes: int = ...,
        max_line_bytes: int = ...,
    ) -> None: ...
    @overload
    def translate(
        self,
        text: str,
        *,
        beam: int | None = None,
        alpha: float | None = None,
        beta: float | None = None,
        max_len_a: float | None = None,
        max_len_b: float | None = None,
        block_repeats: int | None = None,
        timeout_ms: int | None = None,
        beam_rules: Literal["softalign", "opennmt", "joeynmt"] | None = None,
    ) -> str: ...
    @overload
    def translate(
        self,
        text: list[str] | tuple[str, ...],  # a str is a Sequence[str] too: its own overload above
        *,
        beam: int | None = None,
        alpha: float | None = None,
        beta: float | None = None,
        max_len_a: float | None = None,
        max_len_b: float | None = None,
        block_repeats: int | None = None,
        timeout_ms: int | None = None,
        beam_rules: Literal["softalign", "opennmt", "joeynmt"] | None = None,
    ) -> list[str | Error]: ...
    @overload
    def translate_nbest(
        self,
        text: str,
        *,
        nbest: int | None = None,
        beam: int | None = None,
        alpha: float | None = None,
        beta: float | None = None,
        max_len_a: float | None = None,
        max_len_b: float | None = None,
        attention: bool = False,
        alignment: bool = False,
        prefix: str = "",
        block_repeats: int | None = None,
        timeout_ms: int | None = None,
        beam_rules: Literal["softalign", "opennmt", "joeynmt"] | None = None,
    ) -> Result: ...
    @overload
    def translate_nbest(
        self,
        text: list[str] | tuple[str, ...],  # a str is a Sequence[str] too: its own overload above
        *,
        nbest: int | None = None,
        beam: int | None = None,
        alpha: float | None = None,
        beta: float | None = None,
        max_len_a: float | None = None,
        max_len_b: float | None = None,
        attention: bool = False,
        alignment: bool = False,
        prefix: str = "",
        block_repeats: int | None = None,
        timeout_ms: int | None = None,
        beam_rules: Literal["softalign", "opennmt", "joeynmt"] | None = None,
    ) -> list[Result | Error]: ...
    def translate_batch(
        self,
        source: Sequence[str],
        *,
        beam_size: int | None = None,
        num_hypotheses: int | None = None,
        return_scores: bool = False,
        max_batch_size: int | None = None,
        return_alignment: bool = False,
        timeout_ms: int | None = None,
        target_prefix: str | Sequence[str | None] | None = None,
    ) -> list[TranslationResult | Error]: ...
    def translate_iter(self, text: str, *, beam: int | None = None, timeout_ms: int | None = None) -> TranslationStream: ...
    def cancel(self) -> None: ...
    @property
    def max_batch(self) -> int: ...
    @property
    def model(self) -> Model: ...
    @property
    def models(self) -> list[Model]: ...
    @property
    def kernels(self) -> str: ...
    @property
    def backend(self) -> str: ...
    @property
    def backend_reason(self) -> str: ...
    @property
    def device(self) -> str: ...
    @property
    def arena_bytes(self) -> int: ...
    @property
    def max_source_tokens(self) -> int: ...
    @property
    def max_target_tokens(self) -> int: ...
    @property
    def beam(self) -> int: ...

def read_glossary(tsv: str) -> list[tuple[str, str]]: ...
def option_defaults() -> dict[str, Any]: ...

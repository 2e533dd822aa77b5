"""softalign: offline translation with attention RNN models (Bahdanau 2014, Luong 2015).

The compiled module is softalign._softalign (platforms/python/softalign_python.cpp);
this package gives its names, with their types in __init__.pyi (py.typed).
"""
from . import _softalign
from ._softalign import (
    Cancelled,
    DeadlineExceeded,
    Error,
    Hypothesis,
    Model,
    Result,
    StreamEvent,
    TranslationResult,
    TranslationStream,
    Translator,
    __version__,
    option_defaults,
    read_glossary,
)

__all__ = [
    "Cancelled",
    "DeadlineExceeded",
    "Error",
    "Hypothesis",
    "Model",
    "Result",
    "StreamEvent",
    "TranslationResult",
    "TranslationStream",
    "Translator",
    "__version__",
    "option_defaults",
    "read_glossary",
]

# Shown as softalign.Model, softalign.Error, ... (where they are documented), not softalign._softalign.
for _name in __all__:
    _obj = globals()[_name]
    if isinstance(_obj, type):
        _obj.__module__ = __name__
del _name, _obj

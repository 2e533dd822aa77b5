"""softalign-import: RNN attention models trained with OpenNMT-py or JoeyNMT, read with
torch alone and written in softalign's weights layout (models/WEIGHTS_FORMAT.md, format
version 2): `model.safetensors` + `src.spm.model` + `tgt.spm.model`.

    python3 -m softalign_import {opennmt-py|joeynmt} CHECKPOINT [options]

`import_checkpoint(...)` does the work and returns the folder; `main()` is the
command line. docs/import.md lists the options of each toolkit that the format
expresses and those it refuses.
"""
from .errors import ImportRefused

__all__ = ["ImportRefused", "import_checkpoint"]


def __getattr__(name):
    # import_checkpoint needs torch: imported on first use, so that the command line (and
    # its error when torch is missing) does not need it to start.
    if name == "import_checkpoint":
        from .common import import_checkpoint
        return import_checkpoint
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

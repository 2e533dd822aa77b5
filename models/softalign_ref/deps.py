"""Which setup step provides each third-party Python module that models/ and the
tests import, so that a missing one fails with one line saying so (never a
traceback to read, never a silent skip)."""
import sys

_SETUP = "bash scripts/setup.sh full"
_PYPI = "from PyPI into the project venv .venv, which CMake then runs the tests with"
# Top-level module -> where `scripts/setup.sh full` gets it.
PROVIDERS = {
    "sacrebleu": _PYPI,
    "safetensors": _PYPI,
    "onnx": _PYPI,
    "onnxruntime": _PYPI,
    "torch": "Debian's python3-torch",
    "numpy": "Debian's python3-numpy",
    "yaml": "Debian's python3-yaml",
    "tqdm": "Debian's python3-tqdm",
    "matplotlib": "Debian's python3-matplotlib",
    "pytest": "Debian's python3-pytest",
    "sentencepiece": "Debian's python3-sentencepiece",
    "flatbuffers": "Debian's python3-flatbuffers",
}


def missing_module_line(name):
    """The one line for a missing module `name`, or None when no setup step provides it."""
    top = (name or "").split(".")[0]
    if top not in PROVIDERS:
        return None
    return (f"missing Python module '{top}' for {sys.executable}: `{_SETUP}` provides it "
            f"({PROVIDERS[top]})")


def install_excepthook():
    """An uncaught ModuleNotFoundError for a module of PROVIDERS prints its one line
    (exit status 1, as for any uncaught exception)."""
    previous = sys.excepthook

    def hook(kind, value, tb):
        line = missing_module_line(value.name) if isinstance(value, ModuleNotFoundError) else None
        if line is None:
            previous(kind, value, tb)
        else:
            print(line, file=sys.stderr)

    sys.excepthook = hook

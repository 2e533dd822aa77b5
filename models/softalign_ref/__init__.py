"""softalign_ref: the PyTorch reference models, translator, export, trainer and evaluation.

Modules: config (ModelConfig), model (build_model), search (translate_ids),
export (save/load safetensors), tokenizer, data, train, evaluate.
"""

from softalign_ref import deps as _deps

# Every script of models/ imports this package before its third-party modules:
# a missing one then fails with one line naming the setup step (deps.py).
_deps.install_excepthook()

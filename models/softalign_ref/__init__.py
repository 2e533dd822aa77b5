"""softalign_ref: the PyTorch reference models, translator, export, trainer and evaluation.

Modules: config (ModelConfig), model (build_model), search (translate_ids),
export (save/load safetensors), tokenizer, data, train, evaluate.
"""

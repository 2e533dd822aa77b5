#!/usr/bin/env python3
"""Train a softalign model from a recipe.

  python3 models/train.py --recipe models/recipes/bahdanau.yaml \
      --corpus CORPUS_DIR --src en --tgt fr --out runs/en-fr

CORPUS_DIR holds train.{src,tgt} and dev.{src,tgt}. Running the same command again
resumes exactly from OUT/checkpoint.pt. The best model (by dev BLEU) is exported to
OUT/model/ with its training state. `--warm-start MODEL_DIR` continues from such a
folder (e.g. a shipped models/PAIR/ with training/) when OUT has no checkpoint yet.
`--benchmark-steps N` only measures training speed (target tokens/s). `--device cuda`
trains on the GPU (default cpu).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# OpenMP threads that sleep instead of spinning while they wait: on a machine shared
# with other work, spinning threads made 2-thread training 5x slower (measured).
# It must be set before torch (libgomp) is loaded.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from softalign_ref.train import Trainer, RecipeError, load_recipe  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--recipe", required=True, help="recipe YAML file")
    p.add_argument("--corpus", required=True, help="folder with train/dev files")
    p.add_argument("--src", required=True, help="source language suffix, e.g. en")
    p.add_argument("--tgt", required=True, help="target language suffix, e.g. fr")
    p.add_argument("--out", required=True, help="output folder (checkpoint, logs, model/)")
    p.add_argument("--threads", type=int, help="torch threads (overrides training.threads)")
    p.add_argument("--train-limit", type=int, help="use the first N training pairs")
    p.add_argument("--max-minutes", type=float, help="stop after this much training time")
    p.add_argument("--max-steps", type=int, help="stop after this many steps")
    p.add_argument("--eval-every", type=int, help="evaluate on dev every N steps")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a recipe key, e.g. --set training.lr=0.002 (repeatable)")
    p.add_argument("--tokenizers", metavar="DIR",
                   help="use the SentencePiece model(s) in DIR (see make_tokenizers.py) instead of training new ones")
    p.add_argument("--warm-start", metavar="MODEL_DIR",
                   help="when OUT has no checkpoint: start from MODEL_DIR's weights, tokenizers and "
                        "training_state.json (or training/training_state.json); fresh optimizer moments")
    p.add_argument("--device", default="cpu",
                   help="cpu (default) or cuda: where the model trains (exports and dev BLEU search stay on the CPU)")
    p.add_argument("--benchmark-steps", type=int,
                   help="only time N training steps (after 2 warm-up steps) and print target tokens/s")
    a = p.parse_args(argv)
    sets = list(a.set)
    for key, val in (("training.threads", a.threads), ("data.train_limit", a.train_limit),
                     ("training.max_minutes", a.max_minutes), ("training.max_steps", a.max_steps),
                     ("training.eval_every", a.eval_every)):
        if val is not None:
            sets.append(f"{key}={val}")
    try:
        recipe = load_recipe(a.recipe, sets)
        trainer = Trainer(recipe, a.corpus, a.src, a.tgt, a.out, log=lambda m: print(m, flush=True),
                          tokenizers=a.tokenizers, warm_start=a.warm_start, device=a.device)
        if a.benchmark_steps:
            import torch
            r = trainer.benchmark(a.benchmark_steps)
            print(f"benchmark: {recipe['name']} ({recipe['model']['variant']}"
                  f"{', input feeding' if recipe['model']['input_feeding'] else ''}): "
                  f"{r['tok_per_s']:.0f} target tokens/s ({r['tokens']} tokens in {r['seconds']:.1f} s, "
                  f"{a.benchmark_steps} steps, {torch.get_num_threads()} threads, {a.device}, "
                  f"{'bf16' if trainer.bf16 else 'fp32'} products; "
                  f"{r['tok_per_cpu_s']:.0f} per CPU second; load average {r['load_before']:.2f} "
                  f"-> {r['load_after']:.2f})", flush=True)
            return 0
        trainer.run()
    except (RecipeError, FileNotFoundError, ValueError) as e:
        print(f"train.py: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("train.py: interrupted; run the same command to resume from the last checkpoint",
              file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

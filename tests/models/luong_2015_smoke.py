#!/usr/bin/env python3
"""Smoke test of models/recipes/luong-2015.yaml (Luong et al. 2015's system: LSTM, one-way
encoder over the reversed source, decoder_init final, input feeding, local-p general) through
the whole pipeline: the recipe at a tiny size (16) trains 120 steps on the toy corpus (batches
of 400 tokens, learning rate 0.01, no dropout: enough for outputs that are not empty),
its export is converted by softalign-convert (fp32 and int8) and translated by the CLI, and
the runtime's fp32 greedy output (copy-through and placeholder repair off) equals the reference
translator's on the dev sentences, all but one at worst (a near-tie of two pieces may fall
either way after float rounding; the variant's exact parity is the golden variant
luong_lstm_reversed: this shows the trainer's export of it runs in the runtime). The figures
mean nothing.

  luong_2015_smoke.py --build-dir BUILD --root REPO
"""
import os
import subprocess
import sys
import tempfile

from toy_corpus import smoke_args, write_toy_corpus

STEPS = 120


def main():
    a = smoke_args()
    sys.path.insert(0, os.path.join(a.root, "models"))
    from softalign_ref.train import Trainer, load_recipe
    from softalign_ref import export
    bin_dir = os.path.join(a.build_dir, "bin")
    with tempfile.TemporaryDirectory() as tmp:
        corpus = os.path.join(tmp, "corpus")
        write_toy_corpus(a.root, corpus, ("train", "dev"))
        recipe = load_recipe(os.path.join(a.root, "models", "recipes", "luong-2015.yaml"), [
            "model.emb_size=16", "model.enc_hidden=16", "model.dec_hidden=16", "model.att_hidden=16",
            "tokenizer.src_vocab=80", "tokenizer.tgt_vocab=80", "training.threads=1",
            f"training.eval_every={STEPS}", "training.dev_bleu_sentences=4", "training.log_every=0",
            "training.batch_tokens=400", "training.max_epochs=1000", "training.patience=1000", "training.lr=0.01",
            "model.dropout=0.0",
            f"training.max_steps={STEPS}"])
        run = os.path.join(tmp, "run")
        st = Trainer(recipe, corpus, "en", "fr", run, quiet=True).run()
        if st["step"] != STEPS:
            print(f"trained {st['step']} steps, not {STEPS}", file=sys.stderr)
            return 1
        md = os.path.join(run, "model")
        meta = export.read_metadata(os.path.join(md, "model.safetensors"))
        kind = {k: meta.get(k) for k in ("cell", "enc_directions", "reverse_source", "decoder_init", "scope",
                                         "input_feeding", "enc_layers")}
        if kind != {"cell": "lstm", "enc_directions": 1, "reverse_source": True, "decoder_init": "final",
                    "scope": "local-p", "input_feeding": True, "enc_layers": 2}:
            print(f"the export is not the recipe's kind: {kind}", file=sys.stderr)
            return 1
        with open(os.path.join(corpus, "dev.en"), encoding="utf-8") as f:
            srcs = [line.rstrip("\n") for line in f][:20]
        text = "".join(s + "\n" for s in srcs)
        outputs = {}
        for prec, flags in (("f32", []), ("int8", ["--int8"])):
            path = os.path.join(tmp, f"luong-2015.{prec}.softalign")
            p = subprocess.run([os.path.join(bin_dir, "softalign-convert"), *flags,
                                os.path.join(md, "model.safetensors"), "-o", path], capture_output=True, text=True)
            if p.returncode != 0:
                print(f"softalign-convert {prec}: {p.stderr[-2000:]}", file=sys.stderr)
                return 1
            p = subprocess.run([os.path.join(bin_dir, "softalign"), "translate", "-m", path, "--beam", "1",
                                "--threads", "1", "--no-copy-through", "--no-repair-placeholders"], input=text, capture_output=True, text=True)
            lines = p.stdout.split("\n")[:len(srcs)]
            if p.returncode != 0 or len(lines) != len(srcs):
                print(f"softalign translate {prec}: exit {p.returncode}, {p.stderr[-2000:]}", file=sys.stderr)
                return 1
            outputs[prec] = lines
        p = subprocess.run([sys.executable, os.path.join(a.root, "models", "translate.py"), md, "--beam", "1"],
                           input=text, capture_output=True, text=True)
        ref = p.stdout.split("\n")[:len(srcs)]
        if p.returncode != 0:
            print(f"models/translate.py: {p.stderr[-2000:]}", file=sys.stderr)
            return 1
        same = sum(x == y for x, y in zip(outputs["f32"], ref))
        print(f"luong-2015: {STEPS} steps trained, converted (fp32, int8) and translated; runtime fp32 greedy = "
              f"reference on {same}/{len(srcs)} sentences; int8 = fp32 on "
              f"{sum(x == y for x, y in zip(outputs['int8'], outputs['f32']))}/{len(srcs)}")
        print("  e.g. " + " | ".join(repr(x) for x in outputs["f32"][:3]))
        if same < len(srcs) - 1 or not any(outputs["f32"]):
            for s, x, y in zip(srcs, outputs["f32"], ref):
                if x != y:
                    print(f"  {s!r}: runtime {x!r}, reference {y!r}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Smoke test of models/choose_on_dev.py: a tiny run (size 8) that keeps three snapshots,
then the choice among its export, the means of its last 1 and 2 snapshots and the best
of those mixed with a start's weights (--start), and a two-point alpha/beta grid, through conversion and the CLI; then models/dev_curve.py's
rows for the same snapshots and its export, by part of dev. It shows that the pipelines run and that the
output folder is a model with the chosen search; the figures mean nothing.

  choose_on_dev_smoke.py --build-dir BUILD --root REPO
"""
import json
import os
import subprocess
import sys
import tempfile

from toy_corpus import smoke_args, write_toy_corpus


def main():
    a = smoke_args()
    sys.path.insert(0, os.path.join(a.root, "models"))
    from softalign_ref.train import Trainer, load_recipe
    from softalign_ref import export
    import torch
    with tempfile.TemporaryDirectory() as tmp:
        corpus = os.path.join(tmp, "corpus")
        n_dev = write_toy_corpus(a.root, corpus, ("train", "dev"))
        recipe = load_recipe(os.path.join(a.root, "models", "recipes", "bahdanau.yaml"), [
            "model.emb_size=8", "model.enc_hidden=8", "model.dec_hidden=8", "model.att_hidden=8",
            "model.maxout_size=4", "tokenizer.src_vocab=60", "tokenizer.tgt_vocab=60", "training.threads=1",
            "training.eval_every=2", "training.keep_snapshots=3", "training.dev_bleu_sentences=4",
            "training.log_every=0"])
        run = os.path.join(tmp, "run")
        Trainer(recipe, corpus, "en", "fr", run, quiet=True).run(stop_after_steps=8)
        out = os.path.join(tmp, "chosen")
        start = os.path.join(tmp, "start")  # any weights of the same shape stand in for a run's start
        start_model, start_cfg = export.load(os.path.join(run, "model", "model.safetensors"))
        with torch.no_grad():
            for v in start_model.state_dict().values():
                v.mul_(0.5)
        export.save(start_model, start_cfg, os.path.join(start, "model.safetensors"))
        p = subprocess.run([sys.executable, os.path.join(a.root, "models", "choose_on_dev.py"), run,
                            "--dev", corpus, "--src", "en", "--tgt", "fr", "--out", out, "--averages", "1,2,5",
                            "--grid", "0.6:0,1.0:0.2", "--beam", "2", "--build-dir", a.build_dir,
                            "--start", start, "--start-shares", "0.5"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stdout[-2000:], p.stderr[-4000:], file=sys.stderr)
            return 1
        table = open(os.path.join(out, "choice.md"), encoding="utf-8").read()
        weight_rows = [ln for ln in table.splitlines() if ln.startswith("| the export") or ln.startswith("| mean of")]
        mixed = [ln for ln in weight_rows if "with the start weights at 0.5" in ln and "(weights 0.5, " in ln]
        grid_rows = [ln for ln in table.splitlines() if ln.startswith("| 0.6 |") or ln.startswith("| 1.0 |")]
        if len(weight_rows) != 4 or len(mixed) != 1 or len(grid_rows) != 2:  # 5 > the 3 snapshots kept: skipped
            print(table, file=sys.stderr)
            return 1
        _, cfg = export.load(os.path.join(out, "model.safetensors"))
        chosen = table.split("Chosen: ")[1].split("\n")[0]
        want = f"beam 2, alpha {cfg.decoding['alpha']}, beta {cfg.decoding['beta']}"
        if cfg.decoding["beam"] != 2 or want not in chosen:
            print(f"config decoding {cfg.decoding} against '{chosen}'", file=sys.stderr)
            return 1
        meta = export.read_metadata(os.path.join(out, "model.safetensors"))
        if ("with the start" in chosen) != ("weights" in meta.get("averaged", {})):
            print(f"chosen '{chosen}' against the metadata {meta.get('averaged')}", file=sys.stderr)
            return 1
        bad = subprocess.run([sys.executable, os.path.join(a.root, "models", "choose_on_dev.py"), run, "--dev", corpus,
                              "--src", "en", "--tgt", "fr", "--out", out, "--start", start, "--start-shares", "1.5"],
                             capture_output=True, text=True)
        if bad.returncode == 0 or "between 0 and 1" not in bad.stderr:
            print(f"--start-shares 1.5: exit {bad.returncode}, {bad.stderr[-500:]}", file=sys.stderr)
            return 1
        for name in ("spm.model", "src.spm.model"):
            if os.path.isfile(os.path.join(run, "model", name)) and not os.path.isfile(os.path.join(out, name)):
                print(f"{name} missing from the chosen folder", file=sys.stderr)
                return 1
        # models/dev_curve.py on the same run: a row per kept snapshot, scores per part
        curve = [sys.executable, os.path.join(a.root, "models", "dev_curve.py"), run, "--dev", corpus,
                 "--src", "en", "--tgt", "fr", "--build-dir", a.build_dir]
        p = subprocess.run(curve + ["--parts", f"first:3,rest:{n_dev - 3}", "--model", os.path.join(run, "model")],
                           capture_output=True, text=True)
        rows = [ln for ln in p.stdout.splitlines() if ln.startswith("| step-") or ln.startswith(f"| {run}")]
        if p.returncode != 0 or len(rows) != 4 or any(len(r.strip("|").split("|")) != 7 for r in rows):
            print(p.stdout[-2000:], p.stderr[-4000:], file=sys.stderr)
            return 1
        bad = subprocess.run(curve + ["--parts", f"first:3,rest:{n_dev - 2}"], capture_output=True, text=True)
        if bad.returncode != 2 or f"covers {n_dev + 1} lines" not in bad.stderr:
            print(f"--parts past the end: exit {bad.returncode}, {bad.stderr[-500:]}", file=sys.stderr)
            return 1
        print(json.dumps({"chosen": chosen, "rows": weight_rows, "curve": rows}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

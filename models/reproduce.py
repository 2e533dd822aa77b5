#!/usr/bin/env python3
"""The seed papers' two findings, reproduced with our trainer and our runtime.

  fig2    Bahdanau et al. (2014), Figure 2: RNNencdec against RNNsearch (bahdanau),
          test BLEU by source-sentence length.
  table4  Luong et al. (2015), Table 4: global attention with the dot, general, concat
          and location scores, local-m and local-p (general), input feeding on and off:
          dev perplexity, test BLEU of softalign fp32 and int8, and runtime speed.

  .venv/bin/python models/reproduce.py all --corpus ../shared/data/ddtp/en-fr --src en --tgt fr

Every model has the same size (--size: the recipes' m, n, d, a and l, written for 256, scaled
to it; luong-global-dot keeps d = 2n, as its dot score needs), the same tokenizers
(--tokenizers), the same training pairs (the first --train-limit pairs whose source has at
most --max-words words: the papers' "-30" models) and the same budget (--steps batches of
the recipe's 3,000 target tokens, constant learning rate, seed 1); the model after the last
step is evaluated. --seeds 1,2 trains every model once per seed (seed 1 in OUT/NAME, seed N in
OUT/NAME-seedN) and the tables then give each seed's figures and say which differences lie
beyond seed noise: where the seeds' ranges of two models do not overlap. Test sentences are
translated by softalign (greedy, the whole test set, long sources split at sentence ends as
the CLI's --split-long does); speed is softalign int8
greedy, 1 thread, on the first --speed-sentences test sentences, all models measured one after
the other at the end (best of --speed-runs).

Running the command again resumes unfinished trainings (train.py checkpoints) and skips
finished ones. Each evaluated model's figures are kept in --results (default
models/reproduce-results/NAME-seedN.json, small enough to commit) with a fingerprint of what
made them (the settings above, the recipe, the tokenizers and the corpus files): a later run
with the same fingerprint takes them from there and needs neither the training nor the model,
so a reproduction too long for one sitting goes on in the next one from the committed figures
(the fingerprint does not cover the code: after a change to the trainer or the runtime that
moves the figures, delete the files to redo them).
Speed is measured again at the end, one model after the other, on the int8 file of any of the
model's seeds still in OUT (the seed changes the weights, not the work); a model with none left
keeps the speed its result file holds, measured right after its evaluation, and the table marks
it. The table says on which CPUs its speed figures were measured. --only NAMES trains and evaluates
just those models (for a second process on a second core) and writes no table.
Writes OUT/results.json, the two tables into models/README.md (between the `reproduce:`
markers) and the figure to models/figures/bahdanau-fig2.png.
Needs build/bin/softalign and build/bin/softalign-convert (scripts/test.sh builds them).
"""
import argparse
import functools
import hashlib
import json
import math
import os
import platform
import re
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from softalign_ref import evaluate as E  # noqa: E402

FIG2 = ["encdec", "bahdanau"]
TABLE4 = ["luong-global-location", "luong-global-dot", "luong-global-general", "luong-global-concat",
          "luong-local-m-general", "luong-local-p-general", "luong-global-general-nofeed"]
SIZE_KEYS = ["emb_size", "enc_hidden", "dec_hidden", "att_hidden", "maxout_size"]
README = os.path.join(HERE, "README.md")
RESULTS = os.path.join(HERE, "reproduce-results")
FIGURE = os.path.join(HERE, "figures", "bahdanau-fig2.png")
BUILD_DIR = [os.path.join(ROOT, "build")]  # --build-dir


def log(msg):
    print(f"reproduce: {msg}", file=sys.stderr, flush=True)


def run(cmd, **kw):
    log(" ".join(cmd))
    return subprocess.run(cmd, check=True, **kw)


def recipe_path(name):
    return os.path.join(HERE, "recipes", name + ".yaml")


def recipe_model(name):
    """The model section of recipe `name`."""
    with open(recipe_path(name), encoding="utf-8") as f:
        return yaml.safe_load(f)["model"]


def describe(name):
    """A row label in the papers' words, from the recipe's model section."""
    m = recipe_model(name)
    if m["variant"] == "encdec":
        return "RNNencdec (no attention)"
    if m["variant"] == "bahdanau":
        return "RNNsearch (Bahdanau additive)"
    feed = "" if m.get("input_feeding", False) else ", no input feeding"
    return f"{m.get('scope', 'global')} ({m['score']}){feed}"


def eval_every(steps):
    """Dev figures every 1,000 steps (a learning curve) when the budget is a multiple of it, else once."""
    return 1000 if steps > 1000 and steps % 1000 == 0 else steps


def run_dir(a, name, seed):
    return os.path.join(a.out, name if seed == 1 else f"{name}-seed{seed}")


def train(name, a, out=None):
    """Trains (or resumes, or reuses) recipe `name` at a.seed into `out` (default OUT/NAME)."""
    out = out or os.path.join(a.out, name)
    model = recipe_model(name)
    # The recipes are written for size 256 (luong-global-dot's d = 2n); scale them all alike.
    sets = [f"model.{k}={model[k] * a.size // 256}" for k in SIZE_KEYS if model.get(k, 0)]  # 0: unused
    sets += [f"data.train_max_src_words={a.max_words}", "training.max_epochs=1000",
             "training.patience=1000", "training.checkpoint_minutes=3", f"training.seed={a.seed}"]
    cmd = [sys.executable, os.path.join(HERE, "train.py"), "--recipe", recipe_path(name),
           "--corpus", a.corpus, "--src", a.src, "--tgt", a.tgt, "--out", out,
           "--tokenizers", a.tokenizers, "--train-limit", str(a.train_limit), "--max-steps", str(a.steps),
           "--eval-every", str(eval_every(a.steps)), "--threads", str(a.threads)]
    for s in sets:
        cmd += ["--set", s]
    run(cmd, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "metrics.jsonl"), encoding="utf-8") as f:
        last = [json.loads(x) for x in f if x.strip()][-1]
    if last["step"] != a.steps:
        raise RuntimeError(f"{name}: the last evaluation is at step {last['step']}, not {a.steps}")
    return out, last


def convert(out, prec, src=None):
    """out/model.PREC.softalign from src (default: the run's export, out/model/), made again when
    the weights are newer; no shortlist."""
    path = os.path.join(out, f"model.{prec}.softalign")
    src = src or os.path.join(out, "model", "model.safetensors")
    os.makedirs(out, exist_ok=True)
    if not os.path.isfile(path) or os.path.getmtime(path) < os.path.getmtime(src):
        flags = ["--int8"] if prec == "int8" else []
        run([os.path.join(BUILD_DIR[0], "bin", "softalign-convert"), *flags, src, "-o", path],
            stdout=subprocess.DEVNULL)
    return path


STATS = re.compile(r"stats: (\d+) lines \((\d+) failed\).* ([0-9.]+) lines/s, ([0-9.]+) target pieces/s")


def softalign(model, lines, extra=(), beam=1):
    """Translates lines with the CLI (`model` a file, or a list of files: their ensemble);
    returns (hypotheses, failed, lines/s, pieces/s)."""
    models = [x for m in ([model] if isinstance(model, str) else model) for x in ("-m", m)]
    p = subprocess.run([os.path.join(BUILD_DIR[0], "bin", "softalign"), "translate", *models, "--beam", str(beam),
                        "--split-long", "--threads", "1", "--stats", *extra],
                       input="\n".join(lines) + "\n", capture_output=True, text=True)
    m = STATS.search(p.stderr)
    if m is None or p.returncode not in (0, 1):
        raise RuntimeError(f"softalign failed on {model}: {p.stderr[-2000:]}")
    hyps = p.stdout.split("\n")[:len(lines)]
    return hyps, int(m.group(2)), float(m.group(3)), float(m.group(4))


@functools.lru_cache(maxsize=None)
def file_digest(paths):
    """sha256 over the files' sha256s (a tuple of paths)."""
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def fingerprint(name, a):
    """What a model's figures depend on, besides the code: a result file with another one is not used."""
    splits = [os.path.join(a.corpus, f"{split}.{lang}") for split in ("train", "dev", "test") for lang in (a.src, a.tgt)]
    return {"recipe": name, "recipe_sha256": file_digest((recipe_path(name),)), "seed": a.seed, "size": a.size,
            "steps": a.steps, "train_limit": a.train_limit, "max_words": a.max_words, "src": a.src, "tgt": a.tgt,
            "corpus_sha256": file_digest(tuple(splits)),
            "tokenizers_sha256": file_digest(tuple(os.path.join(a.tokenizers, f"{s}.spm.model") for s in ("src", "tgt")))}


def result_path(a, name, seed):
    return os.path.join(a.results, f"{name}-seed{seed}.json")


def cpu_name():
    """This CPU in a few words (the speed figures' machine)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.split(":")[0].strip() in ("model name", "Model"):
                    return f"{line.split(':', 1)[1].strip()} ({platform.machine()})"
    except OSError:
        pass
    return platform.machine() or "unknown"


def speed(model, a, srcs):
    """softalign int8 greedy on the first --speed-sentences test sentences, best of --speed-runs:
    (sentences/s, target pieces/s)."""
    runs = [softalign(model, srcs[:a.speed_sentences]) for _ in range(a.speed_runs)]
    return max(x[2] for x in runs), max(x[3] for x in runs)


def evaluate(name, a, srcs, refs, seed=1):
    """Model `name` at `seed`: its figures from its result file when the fingerprint matches, else
    trained (or resumed), translated, scored and written there."""
    a.seed = seed
    made_by = fingerprint(name, a)
    path = result_path(a, name, seed)
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            kept = json.load(f)
        if kept["fingerprint"] == made_by:
            log(f"{name} seed {seed}: figures from {os.path.relpath(path, ROOT)}")
            return kept["row"]
        log(f"{name} seed {seed}: {os.path.relpath(path, ROOT)} was made with other settings; training")
    out, last = train(name, a, run_dir(a, name, seed))
    with open(os.path.join(out, "metrics.jsonl"), encoding="utf-8") as f:
        curve = [{k: m[k] for k in ("step", "dev_ppl", "dev_bleu")} for m in (json.loads(x) for x in f if x.strip())]
    row = {"name": name, "seed": seed, "label": describe(name), "dev_ppl": last["dev_ppl"],
           "dev_bleu": last["dev_bleu"], "train_seconds": last["train_seconds"], "dev_curve": curve}
    for prec in ("f32", "int8"):
        hyps, failed, _, _ = softalign(convert(out, prec), srcs)
        s = E.score(hyps, refs)
        row[f"bleu_{prec}"], row[f"chrf_{prec}"], row[f"failed_{prec}"] = s["bleu"], s["chrf"], failed
        if prec == "f32":
            row["bleu_signature"] = s["bleu_signature"]
            row["by_length"] = E.bleu_by_length(srcs, hyps, refs)
    # Speed only for the first seed: the seed changes the weights, not the work (measure_speed).
    first = seed == a.seed_list[0]
    row["int8_lines_per_s"], row["int8_pieces_per_s"] = speed(convert(out, "int8"), a, srcs) if first else (None, None)
    row["speed_cpu"] = cpu_name() if first else None
    os.makedirs(a.results, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"fingerprint": made_by, "row": row}, f, indent=1)
        f.write("\n")
    return row


def measure_speed(rows, a, srcs):
    """One speed per model, measured again one model after the other on the int8 file of any of its
    seeds still in OUT (the seed changes the weights, not the work) and kept in its first seed's
    row; a model with no int8 file left keeps the figure of its first seed's result file, measured
    right after that evaluation (row["speed_at_end"] False: the table marks it)."""
    for name in dict.fromkeys(r["name"] for r in rows):
        runs = [r for r in rows if r["name"] == name]
        for r in runs[1:]:
            r["int8_lines_per_s"] = r["int8_pieces_per_s"] = None
        runs[0]["speed_at_end"] = False
        for r in runs:
            model = os.path.join(run_dir(a, name, r["seed"]), "model.int8.softalign")
            if os.path.isfile(model):
                runs[0]["int8_lines_per_s"], runs[0]["int8_pieces_per_s"] = speed(model, a, srcs)
                runs[0]["speed_cpu"], runs[0]["speed_at_end"] = cpu_name(), True
                break


def fmt(v, nd=2):
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{nd}f}"


def setup_text(a, n_test):
    seeds = ("the same tokenizers and seed" if len(a.seed_list) == 1
             else f"the same tokenizers, seeds {', '.join(map(str, a.seed_list))}")
    return (f"{a.tgt_name} test set ({n_test} sentences), models of size {a.size} (m = n = {a.size}), "
            f"trained on the first {a.train_limit} pairs of the training split whose source has at most "
            f"{a.max_words} words, {a.steps} steps of 3,000 target tokens each, {seeds}; "
            f"translated by softalign, greedy.")


def by_seed(rows, key):
    """{name: [row[key] for each seed, in seed order]}, names in first-seen order."""
    out = {}
    for r in rows:
        out.setdefault(r["name"], []).append(r[key])
    return out


def cells(values, nd=2):
    return " / ".join(fmt(v, nd) for v in values)


def separated(x, y):
    """Whether two models' seed ranges do not overlap (the difference is beyond seed noise)."""
    return min(x) > max(y) or min(y) > max(x)


def fig2_markdown(rows, a, n_test):
    buckets = [b["bucket"] for b in rows[0]["by_length"]]
    out = ["Test BLEU (softalign fp32) by source length in words; " + setup_text(a, n_test), "",
           "| model | " + " | ".join(buckets) + " | all |",
           "|---|" + "---:|" * (len(buckets) + 1),
           "| sentences | " + " | ".join(str(b["n"]) for b in rows[0]["by_length"]) + f" | {n_test} |"]
    several = len({r["seed"] for r in rows}) > 1
    for r in rows:
        label = r["label"] + (f", seed {r['seed']}" if several else "")
        out.append(f"| {label} | " + " | ".join(fmt(b["bleu"]) for b in r["by_length"])
                   + f" | {fmt(r['bleu_f32'])} |")
    if several:
        enc = [r for r in rows if r["name"] == "encdec"]
        att = [r for r in rows if r["name"] == "bahdanau"]
        gaps, verdicts = [], []
        for k in range(len(buckets) + 1):  # each bucket, then all
            e = [r["by_length"][k]["bleu"] if k < len(buckets) else r["bleu_f32"] for r in enc]
            s = [r["by_length"][k]["bleu"] if k < len(buckets) else r["bleu_f32"] for r in att]
            empty = k < len(buckets) and rows[0]["by_length"][k]["n"] == 0
            gaps.append("–" if empty else cells([y - x for x, y in zip(e, s)]))
            verdicts.append("–" if empty else "yes" if separated(s, e) else "no")
        out += ["| RNNsearch − RNNencdec (per seed) | " + " | ".join(gaps) + " |",
                "| beyond seed noise (ranges apart) | " + " | ".join(verdicts) + " |"]
    out += ["", "![BLEU by source length](figures/bahdanau-fig2.png)"]
    return "\n".join(out)


def speed_cells(r):
    """The two speed cells of a model's row, marked * where the figure is not from this run's
    measurement at the end (measure_speed)."""
    if r is None or r.get("int8_lines_per_s") is None:
        return "– | –"
    mark = "" if r.get("speed_at_end", True) else "\\*"
    return f"{fmt(r['int8_lines_per_s'], 1)}{mark} | {fmt(r['int8_pieces_per_s'], 0)}{mark}"


def table4_markdown(rows, a, n_test):
    timed = [r for r in rows if r.get("int8_lines_per_s") is not None]
    cpus = sorted({r["speed_cpu"] for r in timed})
    out = [setup_text(a, n_test) + f" Speed: softalign int8, greedy, 1 thread, first {a.speed_sentences} "
           f"test sentences, best of {a.speed_runs}, on {' and on '.join(cpus) or 'no CPU'}"
           + (" (compare speeds measured on one CPU only)" if len(cpus) > 1 else "")
           + ", all models one after the other at the end of the run"
           + ("; \\* marks a model whose int8 file was gone by then: its speed was measured right after its "
              "evaluation, when other trainings may have shared the machine, and compares with the others "
              "only roughly." if any(not r.get("speed_at_end", True) for r in timed) else "."), "",
           "| attention | dev ppl | test BLEU fp32 | test BLEU int8 | int8 sentences/s | int8 target pieces/s |",
           "|---|---:|---:|---:|---:|---:|"]
    if len({r["seed"] for r in rows}) == 1:
        for r in rows:
            out.append(f"| {r['label']} | {fmt(r['dev_ppl'])} | {fmt(r['bleu_f32'])} | {fmt(r['bleu_int8'])} | "
                       f"{speed_cells(r)} |")
        return "\n".join(out)
    # Several seeds: each cell lists the seeds' figures in order; the ordering below by mean BLEU.
    out[2] = out[2].replace("| dev ppl | test BLEU fp32 |", "| dev ppl | test BLEU fp32 | mean |")
    out[3] = out[3] + "---:|"
    label = {r["name"]: r["label"] for r in rows}
    ppl, f32, i8 = by_seed(rows, "dev_ppl"), by_seed(rows, "bleu_f32"), by_seed(rows, "bleu_int8")
    speed = {r["name"]: r for r in timed}
    for n in ppl:
        out.append(f"| {label[n]} | {cells(ppl[n])} | {cells(f32[n])} | {fmt(sum(f32[n]) / len(f32[n]))} | "
                   f"{cells(i8[n])} | {speed_cells(speed.get(n))} |")
    out += ["", "Neighbours in order, `>` where their seed ranges do not overlap (beyond seed noise), `≈` "
            "where they do:", "", "- by mean test BLEU (fp32, higher first): " + ordering(f32, label, -1) + ";",
            "- by mean dev perplexity (lower first): " + ordering(ppl, label, 1) + "."]
    return "\n".join(out)


def ordering(values, label, sign):
    """The models in order of sign · mean of their seeds' values, each neighbour pair marked."""
    order = sorted(values, key=lambda n: sign * sum(values[n]) / len(values[n]))
    return " ".join([label[order[0]]] + [f"{'>' if separated(values[x], values[y]) else '≈'} {label[y]}"
                                         for x, y in zip(order, order[1:])])


def replace_section(text, key, body):
    begin, end = f"<!-- reproduce:{key} begin -->", f"<!-- reproduce:{key} end -->"
    if begin not in text or end not in text:
        raise RuntimeError(f"{README} lacks the markers {begin} ... {end}")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{body}\n{end}{tail}"


def plot_fig2(rows, path):
    """One line per model through its seeds' mean BLEU per bucket, and a band over their range."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
    for name, style in zip(FIG2, ["s--", "o-"]):
        runs = [r for r in rows if r["name"] == name]
        if not runs:
            continue
        ks = [k for k, b in enumerate(runs[0]["by_length"]) if b["n"]]
        per_k = [[r["by_length"][k]["bleu"] for r in runs] for k in ks]
        seeds = ", ".join(str(r["seed"]) for r in runs)
        label = runs[0]["label"] + (f" (mean of seeds {seeds}; band: their range)" if len(runs) > 1 else "")
        line, = ax.plot(ks, [sum(v) / len(v) for v in per_k], style, label=label)
        if len(runs) > 1:
            ax.fill_between(ks, [min(v) for v in per_k], [max(v) for v in per_k], color=line.get_color(), alpha=0.2)
    labels = [f"{b['bucket']}\n(n={b['n']})" for b in rows[0]["by_length"]]
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_xlabel("source sentence length (words)")
    ax.set_ylabel("test BLEU")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})  # no version string: same figure, same bytes
    plt.close(fig)


def build_parser(what=True):
    """The options; `what` (the tables to make) only for this command (models/ensemble.py shares the rest)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    if what:
        ap.add_argument("what", choices=["fig2", "table4", "all"])
        ap.add_argument("--seeds", default="1", help="comma-separated training seeds: every model once per seed")
    ap.add_argument("--corpus", default=os.path.join(ROOT, "..", "shared", "data", "ddtp", "en-fr"))
    ap.add_argument("--src", default="en")
    ap.add_argument("--tgt", default="fr")
    ap.add_argument("--tokenizers", default=os.path.join(HERE, "tokenizers", "ddtp-en-fr"),
                    help="folder with src.spm.model and tgt.spm.model (default: the DDTP en-fr ones, "
                         "models/tokenizers/README.md)")
    ap.add_argument("--out", default=os.path.join(ROOT, "runs", "reproduce"))
    ap.add_argument("--size", type=int, default=128)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--train-limit", type=int, default=61537)
    ap.add_argument("--max-words", type=int, default=30)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--speed-sentences", type=int, default=500)
    ap.add_argument("--speed-runs", type=int, default=3)
    ap.add_argument("--build-dir", default=BUILD_DIR[0], help="where bin/softalign and bin/softalign-convert are")
    ap.add_argument("--no-write", action="store_true", help="only print; don't touch models/README.md and the figure")
    ap.add_argument("--results", default=RESULTS,
                    help="folder of the models' result files (default models/reproduce-results)")
    if what:
        ap.add_argument("--only", metavar="NAMES",
                        help="comma-separated recipe names: only train and evaluate these, writing their result "
                             "files, no table (e.g. in a second process, to use a second core)")
    return ap


def main():
    a = build_parser().parse_args()
    a.seed_list = [int(x) for x in a.seeds.split(",")]
    BUILD_DIR[0] = a.build_dir
    a.tgt_name = f"{a.src}→{a.tgt}"
    srcs = E.read_lines(os.path.join(a.corpus, f"test.{a.src}"))
    refs = E.read_lines(os.path.join(a.corpus, f"test.{a.tgt}"))
    if a.only:
        for n in a.only.split(","):
            for seed in a.seed_list:
                evaluate(n, a, srcs, refs, seed)
        return
    # Table 4 ends with RNNsearch as the reference row, so table4 alone evaluates it too.
    names = {"fig2": FIG2, "table4": TABLE4 + ["bahdanau"], "all": FIG2 + TABLE4}[a.what]
    rows = [evaluate(n, a, srcs, refs, seed) for n in names for seed in a.seed_list]
    measure_speed(rows, a, srcs)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "results.json"), "w", encoding="utf-8") as f:
        args = {k: os.path.relpath(v, ROOT) if k in ("corpus", "tokenizers", "out", "build_dir", "results") else v
                for k, v in vars(a).items()}  # paths relative to the repository
        json.dump({"args": args, "rows": rows}, f, indent=1)
    text = open(README, encoding="utf-8").read()
    if a.what in ("fig2", "all"):
        fig2 = [r for r in rows if r["name"] in FIG2]
        md = fig2_markdown(fig2, a, len(srcs))
        print(md + "\n")
        text = replace_section(text, "fig2", md)
        if not a.no_write:
            plot_fig2(fig2, FIGURE)
    if a.what in ("table4", "all"):
        t4 = [r for r in rows if r["name"] in TABLE4] + [r for r in rows if r["name"] == "bahdanau"]
        md = table4_markdown(t4, a, len(srcs))
        print(md)
        text = replace_section(text, "table4", md)
    if not a.no_write:
        with open(README, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()

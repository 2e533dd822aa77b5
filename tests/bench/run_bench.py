#!/usr/bin/env python3
"""The softalign benchmark: softalign int8 and fp32 against PyTorch (fp32 and dynamic
int8) and ONNX Runtime (fp32 and int8) on the same model and sentences, in one run.

    .venv/bin/python tests/bench/run_bench.py [--model-dir models/en-fr] [--sentences 500] [--json rows.json]

For every engine: sentences/s and target tokens/s for batch 1 and 32, greedy and beam
4, at 1 and 2 threads (softalign at batch 32: one translate_batch over all sentences,
32 decoded together); latency p50/p90/p99 at batch 1; peak RSS
and load-to-first-translation time (each configuration in its own process, so both
are its own); BLEU (sacrebleu through softalign_ref.evaluate); the ratio of
sentences/s to PyTorch fp32 in the same configuration. The softalign-vulkan rows (int8
on the Vulkan engine, whatever device `--device vulkan` finds: batch 1 greedy and batch
32 beam 4, a batch decoded together) are skipped, with the reason, where there is no
Vulkan device; on a CPU Vulkan device (lavapipe) they only show that it runs. The other
softalign rows run with `--device cpu`: the CPU engine's own time, memory and load time
(backend=auto would add its one-off Vulkan probe, runtime/README.md). Then the
decode-step bound:
the weight bytes one decoder step reads, divided by the read bandwidth measured on a
buffer of that size, against the measured step time; and the same step time of the model
beside its twin with the other cell (GRU <-> LSTM: the same sizes and keys, random weights),
one file right after the other: what an LSTM step costs against a GRU step of the same size.
It prints; it never fails on a timing. --smoke: 5 sentences, for a test that the whole thing runs.

--baseline-build DIR: another build of softalign (an older commit, say) measured in the
same run: each softalign CPU row is run with DIR's softalign_bench right before it, on
the same files, and the rows "softalign-baseline" and the after/before ratios are printed.
"""
import argparse
import glob
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "models"))

CONFIGS = [(1, 1), (1, 4), (32, 1), (32, 4)]  # (batch, beam)
ENGINES = [("softalign", "int8"), ("softalign", "fp32"), ("softalign-vulkan", "int8"), ("torch", "fp32"),
           ("torch-int8", "int8"), ("ort", "fp32"), ("ort-int8", "int8")]
VULKAN_CONFIGS = [(1, 1), (32, 4)]  # (batch, beam) of the softalign-vulkan rows


def read_lines(path, n):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for _, line in zip(range(n), f)]


def peak_rss_mb():
    """VmHWM of this process (ru_maxrss would count the parent's memory at fork)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentiles(v):
    import numpy as np
    return {f"p{p}_ms": float(np.percentile(v, p)) for p in (50, 90, 99)}


def worker(a):
    """One Python engine, one configuration: prints one JSON line."""
    import torch
    from engines import export_onnx, load_engine
    from softalign_ref import search
    from softalign_ref.tokenizer import Tokenizers
    if a.prepare:  # the ONNX export (and quantisation) once, outside any timing
        from softalign_ref import export
        model, _ = export.load(os.path.join(a.model_dir, "model.safetensors"))
        export_onnx(model, os.path.join(a.work_dir, "onnx"), int8=a.worker == "ort-int8")
        return
    lines = read_lines(a.input, a.sentences)
    t0 = time.perf_counter()
    model, cfg = load_engine(a.worker, a.model_dir, a.threads, a.work_dir)
    tok = Tokenizers.load(a.model_dir)
    opts = dict(beam=a.beam, nbest=1)

    def ids_of(text):
        ids = tok.encode_src(text)
        return ids if len(ids) <= cfg.max_src_len else ids[:cfg.max_src_len - 1] + [cfg.eos_id]

    def run(texts):
        return search.translate_ids(model, [ids_of(t) for t in texts], batch_size=max(1, len(texts)), **opts)

    run(lines[:1])
    load_ms = (time.perf_counter() - t0) * 1e3
    hyps, lat, tokens = [], [], 0
    t1 = time.perf_counter()
    with torch.inference_mode():
        for i in range(0, len(lines), a.batch):
            tb = time.perf_counter()
            for nbest in run(lines[i:i + a.batch]):
                hyps.append(tok.decode_tgt(nbest[0].ids))
                tokens += len(nbest[0].ids)
            lat.append((time.perf_counter() - tb) * 1e3)
    secs = time.perf_counter() - t1
    with open(a.output, "w", encoding="utf-8") as f:
        f.write("".join(h + "\n" for h in hyps))
    row = {"sentences": len(lines), "tokens": tokens, "seconds": secs, "sentences_per_s": len(lines) / secs,
           "tokens_per_s": tokens / secs, "load_ms": load_ms,
           "peak_rss_mb": peak_rss_mb()}
    if a.batch == 1:
        row.update(percentiles(lat))
    print(json.dumps(row))


def cell_twin(model_dir, out_dir):
    """The model of model_dir with the other cell (GRU <-> LSTM), every other key and size the
    same, random weights (a step's time does not depend on the weights' values), written to
    out_dir beside the model's SentencePiece models; returns (own cell, twin's cell, path)."""
    import shutil
    import torch
    from softalign_ref import export
    from softalign_ref.config import ModelConfig
    from softalign_ref.model import build_model
    meta = export.read_metadata(os.path.join(model_dir, "model.safetensors"))
    cfg = ModelConfig.from_dict(meta)
    own = cfg.cell
    cfg.cell = "lstm" if own == "gru" else "gru"
    torch.manual_seed(1)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "model.safetensors")
    export.save(build_model(cfg), cfg, path)
    for spm in glob.glob(os.path.join(model_dir, "*spm.model")):
        shutil.copy(spm, out_dir)
    return own, cfg.cell, path


def run_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model-dir", default=os.path.join(ROOT, "models", "en-fr"),
                    help="trained model directory: model.safetensors + SentencePiece models")
    ap.add_argument("--data-dir", default=os.path.join(os.path.dirname(ROOT), "shared", "data", "ddtp", "en-fr"),
                    help="folder with test.en and test.fr (default: ../shared/data/ddtp/en-fr beside the repository)")
    ap.add_argument("--sentences", type=int, default=500)
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    ap.add_argument("--engines", default=",".join(e for e, _ in ENGINES))
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--baseline-build", help="a build to compare softalign's CPU rows with, in the same run")
    ap.add_argument("--work-dir", default=None, help="converted models, ONNX graphs, translations (default: a temp dir)")
    ap.add_argument("--json", help="write every row as a JSON object (a list) here")
    ap.add_argument("--load-runs", type=int, default=20,
                    help="fresh processes timing load to first translation per softalign int8 file (0: none)")
    ap.add_argument("--smoke", action="store_true",
                    help="5 sentences (golden sentences if no data), batch 1 greedy and batch 32 beam 4 only")
    # worker mode (internal)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--prepare", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--input", help=argparse.SUPPRESS)
    ap.add_argument("--output", help=argparse.SUPPRESS)
    ap.add_argument("--batch", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--beam", type=int, default=1, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        a.threads = int(a.threads)
        return worker(a)

    from softalign_ref.evaluate import score
    work = a.work_dir or tempfile.mkdtemp(prefix="softalign-bench-")
    os.makedirs(work, exist_ok=True)
    n = 5 if a.smoke else a.sentences
    src_path, ref_path = os.path.join(a.data_dir, "test.en"), os.path.join(a.data_dir, "test.fr")
    if os.path.exists(src_path) and os.path.exists(ref_path):
        srcs, refs = read_lines(src_path, n), read_lines(ref_path, n)
    elif a.smoke:  # a golden model's own sentences; BLEU against the sources is only a smoke figure
        with open(os.path.join(a.model_dir, "golden.json"), encoding="utf-8") as f:
            srcs = [s["src_text"] for s in json.load(f)["sentences"]][:n]
        refs = srcs
    else:
        sys.exit(f"run_bench: no {src_path} / {ref_path} (see --data-dir)")
    # Sources longer than the model's max_src_len are cut to fit (the same text for every engine).
    from softalign_ref import export
    from softalign_ref.tokenizer import Tokenizers
    max_src = export.read_metadata(os.path.join(a.model_dir, "model.safetensors"))["max_src_len"]
    tok = Tokenizers.load(a.model_dir)

    def fit(text):
        pieces, k = tok.src.encode(text), max_src - 1
        while len(tok.src.encode(text)) + 1 > max_src:  # + EOS
            k = k * 3 // 4
            text = tok.src.decode(pieces[:k])
        return text
    srcs = [fit(s) for s in srcs]
    inp = os.path.join(work, "input.txt")
    with open(inp, "w", encoding="utf-8") as f:
        f.write("".join(s + "\n" for s in srcs))

    bindir = os.path.join(a.build_dir, "bin")
    weights = os.path.join(a.model_dir, "model.safetensors")
    files = {}
    for prec, flag in (("fp32", []), ("int8", ["--int8"])):
        files[prec] = os.path.join(work, f"model.{prec}.softalign")
        subprocess.run([os.path.join(bindir, "softalign-convert"), *flag, weights, "-o", files[prec]],
                       check=True, capture_output=True)
    engines = list(ENGINES)
    # A shipped model folder (models/ship.sh) also holds the runtime file as shipped, with its
    # vocabulary shortlist: benchmarked as softalign "int8+sl" beside the plain conversions.
    shipped = sorted(glob.glob(os.path.join(a.model_dir, "*.int8.softalign")))
    if shipped and not a.smoke:
        files["int8+sl"] = shipped[0]
        engines.insert(1, ("softalign", "int8+sl"))
    threads = [int(t) for t in a.threads.split(",")]
    wanted = a.engines.split(",")
    py = [sys.executable, os.path.abspath(__file__), "--model-dir", a.model_dir, "--work-dir", work,
          "--input", inp, "--sentences", str(n)]
    rows, baseline_rows = [], []
    for engine, prec in engines:
        if engine not in wanted:
            continue
        if engine.startswith("ort"):
            try:
                subprocess.run(py + ["--worker", engine, "--prepare", "--threads", "1"], check=True,
                               capture_output=True, text=True)
            except subprocess.CalledProcessError as e:
                print(f"[{engine}] skipped: {e.stderr.strip().splitlines()[-1] if e.stderr else e}", file=sys.stderr)
                continue
        vulkan = engine == "softalign-vulkan"
        configs = VULKAN_CONFIGS if vulkan else CONFIGS if not a.smoke else [(1, 1), (32, 4)]
        skip = False
        for batch, beam in configs:
            for t in ([1] if vulkan else threads):  # the device's own parallelism
                out = os.path.join(work, f"{engine}.{prec}.b{batch}.k{beam}.t{t}.txt")
                def bench_cmd(bins, output):
                    return [os.path.join(bins, "softalign_bench"), "--model", files[prec], "--input", inp,
                            "--sentences", str(n), "--batch", str(batch), "--beam", str(beam),
                            "--threads", str(t), "--output", output, "--device", "vulkan" if vulkan else "cpu"]
                if engine.startswith("softalign"):
                    cmd = bench_cmd(bindir, out)
                    if a.baseline_build and not vulkan:  # the baseline right before, on the same files
                        r = run_json(bench_cmd(os.path.join(a.baseline_build, "bin"), out))
                        baseline_rows.append({"engine": "softalign-baseline", "precision": prec, "batch": batch, "beam": beam,
                                     "threads": t, "sentences_per_s": r["sentences_per_s"],
                                     "tokens_per_s": r["tokens_per_s"]})
                else:
                    cmd = py + ["--worker", engine, "--batch", str(batch), "--beam", str(beam),
                                "--threads", str(t), "--output", out]
                try:
                    r = run_json(cmd)
                except RuntimeError as e:
                    if not (vulkan and "unsupported" in str(e)):
                        raise
                    print(f"[{engine}] skipped: {str(e).splitlines()[-1]}", file=sys.stderr)
                    skip = True
                    break
                with open(out, encoding="utf-8") as f:
                    hyps = [line.rstrip("\n") for line in f]
                row = {"engine": engine if engine.startswith("softalign") else engine.split("-")[0],
                       "precision": prec, "batch": batch, "beam": beam, "threads": t,
                       "sentences_per_s": r["sentences_per_s"], "tokens_per_s": r["tokens_per_s"],
                       "p50_ms": r.get("p50_ms"), "p90_ms": r.get("p90_ms"), "p99_ms": r.get("p99_ms"),
                       "peak_rss_mb": r["peak_rss_mb"], "load_ms": r["load_ms"],
                       "bleu": score(hyps, refs)["bleu"]}
                if "model_mb" in r:
                    row["model_mb"] = r["model_mb"]
                if "sentences_per_cpu_s" in r:
                    row["sentences_per_cpu_s"] = r["sentences_per_cpu_s"]
                if vulkan:
                    row["device"] = r["device"]
                rows.append(row)
                print(f"  {row['engine']:16} {prec:7} batch {batch:2} beam {beam} threads {t}: "
                      f"{row['sentences_per_s']:8.1f} sent/s, BLEU {row['bleu']:.2f}", file=sys.stderr, flush=True)
                if a.json:  # the rows so far, in case the run is cut short
                    write_json(a.json, rows)
            if skip:
                break
    base = {(r["batch"], r["beam"], r["threads"]): r["sentences_per_s"] for r in rows
            if r["engine"] == "torch" and r["precision"] == "fp32"}
    for r in rows:
        b = base.get((r["batch"], r["beam"], r["threads"]))
        r["vs_torch_fp32"] = r["sentences_per_s"] / b if b else None

    bounds = []
    if "softalign" in wanted:
        for prec in ("int8", "fp32"):
            b = run_json([os.path.join(bindir, "softalign_bench"), "--model", files[prec], "--step-bound"])
            b["precision"] = prec
            bounds.append(b)

    # The cost of a decoder step by cell: the model against its twin with the other cell (GRU
    # <-> LSTM, the same sizes and keys), each file's step timed as the bound above times it,
    # one right after the other.
    cell_steps = []
    if "softalign" in wanted:
        own, other, twin = cell_twin(a.model_dir, os.path.join(work, "twin"))
        for prec, flag in (("int8", ["--int8"]), ("fp32", [])):
            twin_file = os.path.join(work, f"twin.{prec}.softalign")
            subprocess.run([os.path.join(bindir, "softalign-convert"), *flag, twin, "-o", twin_file],
                           check=True, capture_output=True)
            for cell, path in sorted(((own, files[prec]), (other, twin_file))):  # gru first
                b = run_json([os.path.join(bindir, "softalign_bench"), "--model", path, "--step-bound"])
                cell_steps.append({"kind": "cell_step", "precision": prec, "cell": cell, "twin": cell != own,
                                   "step_ms": b["step_ms"], "step_bytes": b["step_bytes"], "kernels": b["kernels"]})

    # Load to first translation, alone: one sample per configuration above is noisy (a
    # single page-cache or scheduler hiccup doubles it), so N fresh processes per int8 file,
    # each loading the file, preparing a greedy translator and translating the first sentence.
    loads = []
    if "softalign" in wanted and a.load_runs > 0 and not a.smoke:
        for prec in [p for p in ("int8", "int8+sl") if p in files]:
            runs = sorted((run_json([os.path.join(bindir, "softalign_bench"), "--model", files[prec], "--input", inp,
                                     "--sentences", "1", "--beam", "1", "--device", "cpu"])
                           for _ in range(a.load_runs)),
                          key=lambda r: r["load_ms"])
            med = runs[len(runs) // 2]
            loads.append({"kind": "load", "precision": prec, "runs": len(runs), "min_ms": runs[0]["load_ms"],
                          "median_ms": med["load_ms"], "max_ms": runs[-1]["load_ms"],
                          "median_model_load_ms": med["model_load_ms"], "median_prepare_ms": med["prepare_ms"],
                          "median_first_translation_ms": med["first_translation_ms"]})

    def f(v, fmt):
        return "-" if v is None else format(v, fmt)
    print(f"{n} sentences of {src_path if srcs is not refs else 'the golden set'}; model {a.model_dir}")
    print(f"{'engine':16} {'prec':7} {'batch':>5} {'beam':>4} {'thr':>3} {'sent/s':>8} {'tok/s':>8} {'x torch':>7} "
          f"{'p50 ms':>7} {'p90 ms':>7} {'p99 ms':>7} {'RSS MB':>7} {'load ms':>8} {'BLEU':>6}")
    for r in rows:
        print(f"{r['engine']:16} {r['precision']:7} {r['batch']:5} {r['beam']:4} {r['threads']:3} "
              f"{r['sentences_per_s']:8.1f} {r['tokens_per_s']:8.0f} {f(r['vs_torch_fp32'], '7.2f'):>7} "
              f"{f(r['p50_ms'], '7.2f'):>7} {f(r['p90_ms'], '7.2f'):>7} {f(r['p99_ms'], '7.2f'):>7} "
              f"{r['peak_rss_mb']:7.1f} {r['load_ms']:8.1f} {r['bleu']:6.2f}")
    # After against before: softalign's rows against the baseline build's, in the same run.
    for r in rows:
        base = next((b for b in baseline_rows if r["engine"] == "softalign" and
                     all(b[k] == r[k] for k in ("precision", "batch", "beam", "threads"))), None)
        if base is not None:
            print(f"after/before, softalign {r['precision']} batch {r['batch']} beam {r['beam']} threads "
                  f"{r['threads']}: {r['sentences_per_s']:.1f} vs {base['sentences_per_s']:.1f} sent/s = "
                  f"{r['sentences_per_s'] / base['sentences_per_s']:.3f}x")
    # Batching: softalign's batch 32 against its batch 1, wall and CPU time (the CPU
    # time does not grow when other programs share the cores).
    single = {(r["precision"], r["beam"], r["threads"]): r for r in rows
              if r["engine"] == "softalign" and r["batch"] == 1}
    for r in rows:
        one = single.get((r["precision"], r["beam"], r["threads"]))
        if r["engine"] != "softalign" or r["batch"] == 1 or one is None:
            continue
        cpu = (f", {r['sentences_per_cpu_s'] / one['sentences_per_cpu_s']:.2f}x per CPU second"
               if "sentences_per_cpu_s" in r and "sentences_per_cpu_s" in one else "")
        print(f"batching, softalign {r['precision']} beam {r['beam']} threads {r['threads']}: batch {r['batch']} "
              f"{r['sentences_per_s'] / one['sentences_per_s']:.2f}x batch 1's sentences/s{cpu}")
    for device in sorted({r["device"] for r in rows if r.get("device")}):
        print(f"softalign-vulkan rows: Vulkan device {device}")
    for b in bounds:
        print(f"decode step, softalign {b['precision']} ({b['kernels']}): {b['step_ms'] * 1e3:.1f} us measured; "
              f"{b['step_bytes'] / 1e6:.2f} MB read at {b['bandwidth_gb_s']:.1f} GB/s = {b['bound_ms'] * 1e3:.1f} us "
              f"bound; ratio {b['ratio']:.2f}")
    for prec in dict.fromkeys(c["precision"] for c in cell_steps):
        by = {c["cell"]: c for c in cell_steps if c["precision"] == prec}
        twin = next(c["cell"] for c in by.values() if c["twin"])
        print(f"decode step by cell, softalign {prec} ({by['gru']['kernels']}; the {twin} model is the other's "
              f"twin): gru {by['gru']['step_ms'] * 1e3:.1f} us ({by['gru']['step_bytes'] / 1e6:.2f} MB), "
              f"lstm {by['lstm']['step_ms'] * 1e3:.1f} us ({by['lstm']['step_bytes'] / 1e6:.2f} MB); "
              f"lstm/gru {by['lstm']['step_ms'] / by['gru']['step_ms']:.2f}x")
    for ld in loads:
        print(f"load to first translation, softalign {ld['precision']} ({ld['runs']} fresh processes): "
              f"min {ld['min_ms']:.1f} ms, median {ld['median_ms']:.1f} ms (model load "
              f"{ld['median_model_load_ms']:.1f} + prepare {ld['median_prepare_ms']:.1f} + first sentence "
              f"{ld['median_first_translation_ms']:.1f}), max {ld['max_ms']:.1f} ms")
    if a.json:
        write_json(a.json, rows + baseline_rows + [dict(kind="step_bound", **b) for b in bounds] + cell_steps + loads)


def write_json(path, rows):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as fh:
        json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Sequence-level knowledge distillation (Kim and Rush, 2016): a corpus whose targets are a
teacher model's translations of its sources, for training a smaller student on.

  python3 models/distill.py --teacher models/en-fr/en-fr.int8.softalign --corpus runs/mix/en-fr \\
      --src en --tgt fr --out runs/distilled/en-fr [--beam 4] [--chunk 20000] [--threads 1]

The teacher is a .softalign file, run by the native CLI (build/bin/softalign, --cli), so
the targets are what the shipped runtime gives: its beam search and defaults (the file's
length penalty, repeat blocking, shortlist), copy-through and placeholders included.
The sources of CORPUS/train.SRC go through in chunks of --chunk lines; each chunk's output
is written whole (to a temporary name, then renamed) into OUT/parts/, so a killed run
resumes at the first chunk it has not finished, and the same command continues it.

When every chunk is done, OUT/train.SRC and OUT/train.TGT are the pairs kept: the teacher's
output must be non-empty and within --max-ratio of the source's length in characters either
way (a teacher that stops early or runs on is not copied into the student). CORPUS's dev
files are copied unchanged: the student is tuned on real references.
OUT/distill.json records the teacher, the options, the counts and the time.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def translate_chunk(args, lines):
    """The teacher's translations of lines, one each, in order (a line that fails gives '')."""
    cmd = [args.cli, "translate", "-m", args.teacher, "--threads", str(args.threads), "--batch", str(args.batch),
           "--replace-invalid-utf8"]
    if args.beam:
        cmd += ["--beam", str(args.beam)]
    # A line holding only whitespace would come back as an empty line too; the CLI keeps
    # one output line per input line.
    proc = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, encoding="utf-8")
    out = proc.stdout.split("\n")
    if out and out[-1] == "":
        out.pop()
    if proc.returncode not in (0, 1) or len(out) != len(lines):
        raise SystemExit(f"distill: the teacher gave {len(out)} lines for {len(lines)} (exit {proc.returncode}):\n"
                         f"{proc.stderr[-2000:]}")
    return out


def keep(src, hyp, max_ratio):
    if not hyp.strip():
        return False
    a, b = len(src), len(hyp)
    return b <= max_ratio * a + 10 and a <= max_ratio * b + 10


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--teacher", required=True, help="the teacher's .softalign file")
    p.add_argument("--corpus", required=True, help="folder with train.SRC (and dev/test files to copy)")
    p.add_argument("--src", required=True)
    p.add_argument("--tgt", required=True)
    p.add_argument("--out", required=True, help="the distilled corpus folder (parts/ inside while it runs)")
    p.add_argument("--beam", type=int, help="the teacher's beam (default: the file's)")
    p.add_argument("--chunk", type=int, default=20000, help="lines a resumable part")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--batch", type=int, default=32, help="lines decoded together (the CLI's --batch)")
    p.add_argument("--max-ratio", type=float, default=3.0, help="largest length ratio kept, in characters")
    p.add_argument("--limit", type=int, help="distil only the first N training sources")
    p.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "softalign"))
    args = p.parse_args(argv)
    if not os.path.isfile(args.cli):
        p.error(f"no {args.cli}: build the runtime first (README), or give --cli")
    if args.chunk < 1 or args.threads < 1 or args.batch < 1 or args.max_ratio <= 1:
        p.error("--chunk, --threads and --batch must be at least 1, --max-ratio above 1")

    sources = read_lines(os.path.join(args.corpus, f"train.{args.src}"))[: args.limit]
    parts = os.path.join(args.out, "parts")
    os.makedirs(parts, exist_ok=True)
    n_chunks = (len(sources) + args.chunk - 1) // args.chunk
    t0 = time.time()
    done_before = 0
    for c in range(n_chunks):
        path = os.path.join(parts, f"{c:05d}.{args.tgt}")
        if os.path.exists(path):
            done_before += 1
            continue
        lines = sources[c * args.chunk:(c + 1) * args.chunk]
        t = time.time()
        out = translate_chunk(args, lines)
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in out))
        os.replace(path + ".tmp", path)
        print(f"distill: part {c + 1}/{n_chunks}: {len(lines)} lines in {time.time() - t:.0f} s", flush=True)

    hyps = []
    for c in range(n_chunks):
        hyps += read_lines(os.path.join(parts, f"{c:05d}.{args.tgt}"))
    if len(hyps) != len(sources):
        raise SystemExit(f"distill: {len(hyps)} translations for {len(sources)} sources in {parts}: remove it and rerun")
    kept = empty = ratio = 0
    with open(os.path.join(args.out, f"train.{args.src}"), "w", encoding="utf-8") as fs, \
            open(os.path.join(args.out, f"train.{args.tgt}"), "w", encoding="utf-8") as ft:
        for s, h in zip(sources, hyps):
            if keep(s, h, args.max_ratio):
                fs.write(s + "\n")
                ft.write(h + "\n")
                kept += 1
            elif not h.strip():
                empty += 1
            else:
                ratio += 1
    copied = []
    for name in sorted(os.listdir(args.corpus)):
        if name.startswith("dev.") and name.endswith((f".{args.src}", f".{args.tgt}")):
            shutil.copyfile(os.path.join(args.corpus, name), os.path.join(args.out, name))
            copied.append(name)
    record = {"teacher": os.path.basename(args.teacher), "teacher_sha256": sha256(args.teacher),
              "corpus": args.corpus, "beam": args.beam or "the file's", "max_ratio": args.max_ratio,
              "sources": len(sources), "kept": kept, "dropped_empty": empty, "dropped_ratio": ratio,
              "copied": copied, "chunks_resumed": done_before,
              "seconds_this_run": round(time.time() - t0, 1)}
    with open(os.path.join(args.out, "distill.json"), "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1)
    print(json.dumps(record))


if __name__ == "__main__":
    sys.exit(main())

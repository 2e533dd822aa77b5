#!/usr/bin/env python3
"""Model files side by side on every test set of a pair: what a new file must beat before it
replaces a shipped one, and the small models' table.

  .venv/bin/python models/compare_models.py --pair en-fr MODEL.softalign [MODEL ...] \\
      [--baseline models/en-fr/en-fr.int8.softalign] [--threads 1] [--speed-runs 3] [--json FILE]

Each file runs through the native CLI (build/bin/softalign, --cli) with its own defaults (its
beam, length penalty, repeat blocking, shortlist), as a user's app would. For every test set
found (below), each file's corpus BLEU and chrF2 (sacrebleu, softalign_ref.evaluate), the
share of outputs with a word repeated back to back and the share of multi-digit numbers kept.
Then the file's size, and its speed on the first 200 DDTP test sentences, one at a time on one
thread (`--batch 1`), greedy and at its own beam: ms a sentence, the runs of all files
interleaved (--speed-runs rounds, the median kept) so that they share the machine's state.
The baseline (the shipped file by default) is the first column; the last line says, for each
other file, whether it is at least as good as the baseline on every set's BLEU.

Test sets (SRC/TGT suffixes of the pair; a set whose files are missing is skipped, said so):
DDTP (--ddtp, default ../shared/data/ddtp/PAIR/test), the gettext catalogs, the documentation,
game and application dialogue, Ding (en-de) and Bible verses (runs/*-corpus/PAIR/test, from
the recipes in models/corpus/), and models/corpus/everyday.tsv (everyday.py's sentences).
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from softalign_ref import evaluate as E  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPORA = [("gettext", "gettext-corpus"), ("documentation", "docs-corpus"), ("dialogue", "dialogue-corpus"),
           ("Ding", "ding-corpus"), ("Bible", "bible-corpus")]


def test_sets(pair, ddtp, runs):
    """[(name, sources, references)] of the sets present; prints the ones skipped."""
    src, tgt = pair.split("-")
    sets = []
    candidates = [("DDTP", os.path.join(ddtp, "test"))]
    candidates += [(name, os.path.join(runs, folder, pair, "test")) for name, folder in CORPORA]
    for name, prefix in candidates:
        if os.path.isfile(f"{prefix}.{src}") and os.path.isfile(f"{prefix}.{tgt}"):
            sets.append((name, E.read_lines(f"{prefix}.{src}"), E.read_lines(f"{prefix}.{tgt}")))
        else:
            print(f"compare_models: {name}: no {prefix}.{{{src},{tgt}}}, skipped", file=sys.stderr)
    with open(os.path.join(ROOT, "models", "corpus", "everyday.tsv"), encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    if rows and src in rows[0] and tgt in rows[0]:
        sets.append(("everyday.py", [r[src] for r in rows], [r[tgt] for r in rows]))
    return sets


def translate(cli, model, lines, threads, extra=()):
    """The CLI's outputs for lines, one each (a line that fails gives ''), and its stats line."""
    p = subprocess.run([cli, "translate", "-m", model, "--threads", str(threads), "--stats", *extra],
                       input="".join(line + "\n" for line in lines), capture_output=True, text=True)
    out = p.stdout.split("\n")[:len(lines)]
    if len(out) != len(lines):
        raise SystemExit(f"compare_models: {model}: {len(out)} outputs for {len(lines)} lines "
                         f"(exit {p.returncode}): {p.stderr[-1000:]}")
    stats = [line for line in p.stderr.splitlines() if "stats:" in line]
    return out, stats[-1] if stats else ""


def seconds(stats):
    """The translation time of a --stats line ('... pieces in 0.087 s: ...')."""
    return float(stats.split(" s:")[0].rsplit(" ", 1)[1])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("models", nargs="+", help=".softalign files to compare with the baseline")
    p.add_argument("--pair", required=True, help="e.g. en-fr")
    p.add_argument("--baseline", help="the file the others are held to (default models/PAIR/PAIR.int8.softalign)")
    p.add_argument("--ddtp", help="DDTP folder of the pair (default ../shared/data/ddtp/PAIR beside the repository)")
    p.add_argument("--runs", default=os.path.join(ROOT, "runs"), help="where the corpus recipes wrote their folders")
    p.add_argument("--threads", type=int, default=1, help="CLI threads for the test sets (speed: always 1)")
    p.add_argument("--speed-runs", type=int, default=3, help="rounds of the speed runs (0: no speed)")
    p.add_argument("--sets", help="only these sets, comma-separated (e.g. DDTP,dialogue,everyday.py): a quick "
                                  "look at a snapshot; a file replaces a shipped one only on all of them")
    p.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "softalign"))
    p.add_argument("--json", help="write the figures here")
    a = p.parse_args(argv)
    if "-" not in a.pair:
        p.error("--pair is SRC-TGT, e.g. en-fr")
    if not os.path.isfile(a.cli):
        p.error(f"no {a.cli}: build the runtime first (README), or give --cli")
    baseline = a.baseline or os.path.join(ROOT, "models", a.pair, f"{a.pair}.int8.softalign")
    files = [baseline] + [m for m in a.models if os.path.abspath(m) != os.path.abspath(baseline)]
    for f in files:
        if not os.path.isfile(f):
            p.error(f"no {f}")
    ddtp = a.ddtp or os.path.join(os.path.dirname(ROOT), "shared", "data", "ddtp", a.pair)
    sets = test_sets(a.pair, ddtp, a.runs)
    if a.sets:
        wanted = a.sets.split(",")
        unknown = [w for w in wanted if w not in ["DDTP", "everyday.py"] + [n for n, _ in CORPORA]]
        if unknown:
            p.error(f"--sets: unknown {', '.join(unknown)} (DDTP, {', '.join(n for n, _ in CORPORA)}, everyday.py)")
        sets = [t for t in sets if t[0] in wanted]
    if a.speed_runs < 0:
        p.error("--speed-runs is 0 or more")
    names = [os.path.basename(f) for f in files]
    if len(set(names)) < len(names):  # the same file name in other folders: name the folders too
        names = [os.path.join(os.path.basename(os.path.dirname(os.path.abspath(f))), os.path.basename(f)) for f in files]
    if len(set(names)) < len(names):
        p.error("two files with the same folder and file name: give them other names")

    results = {n: {"bytes": os.path.getsize(f), "sets": {}, "speed": {}} for n, f in zip(names, files)}
    for set_name, srcs, refs in sets:
        for n, f in zip(names, files):
            hyps, _ = translate(a.cli, f, srcs, a.threads)
            sc = E.score(hyps, refs)
            bleu, chrf = sc["bleu"], sc["chrf"]
            rep, rep_share = E.repeated_word_rate(hyps)
            kept, total = E.numbers_kept(srcs, hyps)
            results[n]["sets"][set_name] = {"lines": len(srcs), "bleu": bleu, "chrf": chrf,
                                            "repeated": rep_share, "numbers_kept": kept / total if total else None}
            print(f"compare_models: {set_name} ({len(srcs)} lines), {n}: BLEU {bleu:.2f}", file=sys.stderr)

    speed_lines = E.read_lines(os.path.join(ddtp, "test." + a.pair.split("-")[0]))[:200] if sets and sets[0][0] == "DDTP" else []
    for label, extra in (("greedy", ["--beam", "1", "--batch", "1"]), ("its beam", ["--batch", "1"])):
        if not speed_lines or not a.speed_runs:
            break
        times = {n: [] for n in names}
        for _ in range(a.speed_runs):
            for n, f in zip(names, files):
                _, stats = translate(a.cli, f, speed_lines, 1, extra)
                times[n].append(1000 * seconds(stats) / len(speed_lines))
        for n in names:
            results[n]["speed"][label] = statistics.median(times[n])

    def cell(n, set_name):
        r = results[n]["sets"][set_name]
        nums = f", numbers {100 * r['numbers_kept']:.1f} %" if r["numbers_kept"] is not None else ""
        return f"{r['bleu']:.2f} ({r['chrf']:.2f}; repeats {100 * r['repeated']:.2f} %{nums})"

    print(f"\n{a.pair}: BLEU (chrF2; outputs with a word repeated back to back; multi-digit numbers kept)\n")
    print("| | " + " | ".join(f"`{n}`" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    for set_name, srcs, _ in sets:
        print(f"| {set_name} ({len(srcs)} lines) | " + " | ".join(cell(n, set_name) for n in names) + " |")
    print("| file | " + " | ".join(f"{results[n]['bytes']:,} bytes ({results[n]['bytes'] / results[names[0]]['bytes']:.2f}×)"
                                   for n in names) + " |")
    for label in ("greedy", "its beam"):
        if label in results[names[0]]["speed"]:
            base = results[names[0]]["speed"][label]
            print(f"| ms a sentence, {label}, 1 thread, batch 1 (200 DDTP test) | " +
                  " | ".join(f"{results[n]['speed'][label]:.2f} ({base / results[n]['speed'][label]:.2f}× as fast)"
                             for n in names) + " |")
    print()
    for n in names[1:]:
        worse = [s for s, _, _ in sets if results[n]["sets"][s]["bleu"] < results[names[0]]["sets"][s]["bleu"]]
        scope = "every set's BLEU" if not a.sets else f"the BLEU of the {len(sets)} sets run (--sets)"
        print(f"{n}: " + (f"at least as good as the baseline on {scope}" if not worse
                          else "below the baseline on " + ", ".join(worse)))
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"pair": a.pair, "baseline": names[0], "models": results}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())

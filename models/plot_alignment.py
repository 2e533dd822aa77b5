#!/usr/bin/env python3
"""Soft-alignment heat maps from `softalign translate --json` output: one PNG per sentence.

  softalign translate -m MODEL --json < input.txt > out.jsonl
  python3 models/plot_alignment.py [out.jsonl | -] [-o DIR] [--lines 1,3-5] [--numbers 620,637]
                                   [--prefix P] [--hypothesis K] [--dpi D]

Reads JSON lines (a file, or stdin when the file is missing or `-`): each object has
`index`, `source_pieces` and `hypotheses` (each with `text`, `pieces` and `attention`,
the soft alignment matrix: rows are the target pieces then EOS, columns the source
pieces then EOS). For each selected line it writes DIR/PREFIX<N>.png, N being the line's
1-based number in the input (or the matching entry of --numbers): source pieces on the
x axis (at the top), target pieces on the y axis, each cell the weight α_tj in gray
scale, 0 black and 1 white, as in Figure 3 of Bahdanau et al. (2014). The EOS row and
column are labelled `<eos>`; the `▁` of SentencePiece marks a word start.

A line that the CLI could not translate (`{"index": I, "error": ...}`) is reported on
stderr and skipped. Malformed input (not JSON, missing keys, a matrix whose shape does
not match the pieces) is an error naming the line: exit status 1, one line on stderr.
"""
import argparse
import json
import os
import sys

EOS_LABEL = "<eos>"


class InputError(Exception):
    """Malformed input; the message names the line."""


def parse_ranges(text):
    """'1,3-5' -> {1, 3, 4, 5} (1-based line numbers)."""
    out = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            a = int(lo)
            b = int(hi) if sep else a
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad line range '{part}' (expected e.g. 1,3-5)") from None
        if a < 1 or b < a:
            raise argparse.ArgumentTypeError(f"bad line range '{part}' (lines count from 1)")
        out.update(range(a, b + 1))
    if not out:
        raise argparse.ArgumentTypeError("no lines given")
    return out


def parse_numbers(text):
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad --numbers '{text}' (expected e.g. 620,637)") from None


def check_sentence(obj, line_no, hypothesis):
    """The source pieces, the hypothesis and its matrix of one JSON object, checked."""
    where = f"line {line_no}"
    if not isinstance(obj, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    for key in ("source_pieces", "hypotheses"):
        if key not in obj:
            raise InputError(f"{where}: no '{key}' (is this `softalign translate --json` output?)")
    src = obj["source_pieces"]
    hyps = obj["hypotheses"]
    if not isinstance(src, list) or not all(isinstance(p, str) for p in src):
        raise InputError(f"{where}: 'source_pieces' is not a list of strings")
    if not isinstance(hyps, list) or not hyps:
        raise InputError(f"{where}: 'hypotheses' is not a non-empty list")
    if hypothesis >= len(hyps):
        raise InputError(f"{where}: no hypothesis {hypothesis} (it has {len(hyps)}; use --nbest in the CLI)")
    h = hyps[hypothesis]
    if not isinstance(h, dict) or "pieces" not in h:
        raise InputError(f"{where}: hypothesis {hypothesis} has no 'pieces'")
    tgt = h["pieces"]
    if not isinstance(tgt, list) or not all(isinstance(p, str) for p in tgt):
        raise InputError(f"{where}: 'pieces' is not a list of strings")
    if "attention" not in h:
        if not tgt and not src:
            return src, h, None  # an empty input line: nothing to draw
        raise InputError(f"{where}: hypothesis {hypothesis} has no 'attention'")
    att = h["attention"]
    rows, cols = len(tgt) + 1, len(src) + 1
    if (not isinstance(att, list) or len(att) != rows
            or any(not isinstance(r, list) or len(r) != cols for r in att)):
        raise InputError(f"{where}: 'attention' should be {rows} x {cols} (target pieces + EOS by "
                         f"source pieces + EOS)")
    for r in att:
        for v in r:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise InputError(f"{where}: 'attention' holds a non-number: {v!r}")
    return src, h, att


def detok(pieces):
    return "".join(pieces).replace("\u2581", " ").strip()


def plot(src, hyp, att, path, title, dpi):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = list(src) + [EOS_LABEL]
    ys = list(hyp["pieces"]) + [EOS_LABEL]
    cell = 0.32  # inches per cell
    width = max(3.5, 1.6 + cell * len(xs))
    height = max(3.0, 1.9 + cell * len(ys))
    fig, ax = plt.subplots(figsize=(width, height))
    ax.imshow(att, cmap="gray", vmin=0.0, vmax=1.0, interpolation="nearest", aspect="equal")
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels(xs, rotation=90, fontsize=9)
    ax.set_yticks(range(len(ys)))
    ax.set_yticklabels(ys, fontsize=9)
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xlabel("source pieces", fontsize=9)
    ax.set_ylabel("target pieces", fontsize=9)
    for lab in (ax.get_xticklabels()[-1], ax.get_yticklabels()[-1]):
        lab.set_fontstyle("italic")
        lab.set_color("tab:blue")
    ax.tick_params(length=0)
    if title:
        fig.suptitle(title, fontsize=8, y=0.02, va="bottom", wrap=True)
    fig.tight_layout(rect=(0, 0.06 if title else 0, 1, 1))
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("input", nargs="?", default="-", help="JSON lines from `softalign translate --json` (default: stdin)")
    ap.add_argument("-o", "--out-dir", default=".", help="folder for the PNG files (made if missing; default: .)")
    ap.add_argument("--lines", type=parse_ranges, help="1-based input lines to plot, e.g. 1,3-5 (default: all)")
    ap.add_argument("--numbers", type=parse_numbers,
                    help="numbers for the file names instead of the input line numbers, one per input line "
                         "(e.g. the line numbers in the original file the input was selected from)")
    ap.add_argument("--prefix", default="alignment-", help="file name prefix (default: alignment-)")
    ap.add_argument("--hypothesis", type=int, default=0, help="which hypothesis of the n-best list (0 = best)")
    ap.add_argument("--dpi", type=int, default=100, help="resolution (default: 100)")
    ap.add_argument("--no-title", action="store_true", help="leave out the source and translation under the map")
    args = ap.parse_args(argv)
    if args.hypothesis < 0:
        ap.error("--hypothesis must be >= 0")

    try:
        f = sys.stdin if args.input == "-" else open(args.input, encoding="utf-8")
    except OSError as e:
        print(f"plot_alignment: error: cannot read {args.input}: {e.strerror}", file=sys.stderr)
        return 1
    written = []
    try:
        with f:
            n_lines = 0
            for line_no, line in enumerate(f, 1):
                n_lines = line_no
                if args.lines is not None and line_no not in args.lines:
                    continue
                if not line.strip():
                    raise InputError(f"line {line_no}: empty (expected one JSON object per line)")
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as e:
                    raise InputError(f"line {line_no}: not JSON ({e.msg} at column {e.colno})") from None
                if isinstance(obj, dict) and "error" in obj:
                    print(f"plot_alignment: line {line_no}: skipped, the CLI failed on it: {obj['error']}",
                          file=sys.stderr)
                    continue
                src, hyp, att = check_sentence(obj, line_no, args.hypothesis)
                if att is None:
                    print(f"plot_alignment: line {line_no}: skipped, an empty sentence", file=sys.stderr)
                    continue
                if args.numbers is not None:
                    if line_no > len(args.numbers):
                        raise InputError(f"line {line_no}: --numbers gives only {len(args.numbers)} numbers")
                    number = args.numbers[line_no - 1]
                else:
                    number = line_no
                name = f"{args.prefix}{number}"
                title = None if args.no_title else f"{name}: {detok(src)}\n→ {hyp.get('text', detok(hyp['pieces']))}"
                os.makedirs(args.out_dir, exist_ok=True)
                path = os.path.join(args.out_dir, name + ".png")
                plot(src, hyp, att, path, title, args.dpi)
                written.append(path)
        if n_lines == 0:
            raise InputError("the input is empty (expected `softalign translate --json` output)")
        if args.lines is not None and max(args.lines) > n_lines:
            raise InputError(f"--lines asks for line {max(args.lines)}, the input has {n_lines}")
    except InputError as e:
        print(f"plot_alignment: error: {e}", file=sys.stderr)
        return 1
    except UnicodeDecodeError as e:
        print(f"plot_alignment: error: the input is not UTF-8 ({e.reason})", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Placeholders kept (TranslatorOptions::repair_placeholders), measured.

  .venv/bin/python models/measure_placeholders.py MODEL SRC REF [--cli build/bin/softalign]
      [--before-cli OTHER_BUILD/bin/softalign] [--limit N] [--markdown]

Takes the lines of SRC whose source holds a placeholder (printf, Python or Qt
formats, braces, markup tags or entities, by this script's own patterns below:
an independent check of the runtime's rule), translates them with `softalign
translate` twice, without (`--no-repair-placeholders`, or the CLI given as
--before-cli, e.g. a build of an earlier commit, with its default options)
and with the repair (the default), and prints for each:
- formats and braces kept exactly: of the source's (counted with their
  multiplicity), the share the output holds as often, and the outputs that
  hold exactly the source's (none missing, none extra, none changed);
- markup well-formed: of the outputs whose source has tags, the share whose
  tags are the source's (the same multiset) and nest (every closing tag closes
  the innermost open one) whenever the source's do; entities kept likewise;
- BLEU and chrF2 (sacrebleu defaults) against REF on those lines.
"""
import re
import sys
from collections import Counter

import sacrebleu

from measure_copy import measure_arguments, run_cli

FORMAT = re.compile(
    r"%(?:%|\(\w+\)[-+#0]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa]"
    r"|(?:\d+\$)?[-+#0']*(?:\d+|\*)?(?:\.(?:\d+|\*)?)?[hlLqjzt]*[diouxXeEfFgGaAcspnCS@]"
    r"|L?\d{1,2})")
BRACE = re.compile(r"\{\{ *[\w.-]+ *\}\}|\{[\w.-]{0,64}(?:[:,!][^{}\n]{0,64})?\}")
TAG = re.compile(r"<(/?)([A-Za-z][\w:.-]*)(?:[ \t][^<>\n]*?)?(/?)>")
ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#[xX][0-9a-fA-F]{1,6});")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}


def scan(pattern, text):
    """Matches left to right, the way the runtime scans (a '%' or '{' inside a tag is part of it)."""
    tags = [(m.start(), m.end()) for m in TAG.finditer(text)]
    out = []
    for m in pattern.finditer(text):
        if pattern is not TAG and any(b <= m.start() < e for b, e in tags):
            continue
        out.append(m.group(0))
    return out


def formats_and_braces(text):
    # "{{" alone is an escaped brace; "%%" a literal percent (kept as a format).
    return scan(FORMAT, text) + scan(BRACE, text)


def tags_nest(text):
    stack = []
    for m in TAG.finditer(text):
        closing, name, empty = m.group(1), m.group(2).lower(), m.group(3)
        if empty or name in VOID:
            continue
        if not closing:
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack


def translate(cli, model, lines, extra):
    return run_cli([cli, "translate", "-m", model, *extra], lines)


def measure(src, hyp, ref):
    kept = total = exact = 0
    markup_lines = markup_ok = 0
    ent_kept = ent_total = 0
    for s, h in zip(src, hyp):
        want, got = Counter(formats_and_braces(s)), Counter(formats_and_braces(h))
        total += sum(want.values())
        kept += sum(min(n, got[k]) for k, n in want.items())
        exact += want == got
        stags = [m.group(0) for m in TAG.finditer(s)]
        if stags:
            markup_lines += 1
            same = Counter(stags) == Counter(m.group(0) for m in TAG.finditer(h))
            markup_ok += same and (tags_nest(h) or not tags_nest(s))
        we, ge = Counter(ENTITY.findall(s)), Counter(ENTITY.findall(h))
        ent_total += sum(we.values())
        ent_kept += sum(min(n, ge[k]) for k, n in we.items())
    return {
        "kept": 100.0 * kept / max(total, 1), "total": total, "exact_lines": exact,
        "markup": 100.0 * markup_ok / max(markup_lines, 1), "markup_lines": markup_lines,
        "entities": 100.0 * ent_kept / max(ent_total, 1), "entity_total": ent_total,
        "bleu": sacrebleu.corpus_bleu(hyp, [ref]).score, "chrf": sacrebleu.corpus_chrf(hyp, [ref]).score,
    }


def main():
    ap = measure_arguments(__doc__)
    ap.add_argument("--before-cli", help="the CLI for 'before' (default: --cli with --no-repair-placeholders)")
    ap.add_argument("--limit", type=int, default=0, help="the first N lines with placeholders only")
    ap.add_argument("--markdown", action="store_true", help="one markdown table row per method")
    a = ap.parse_args()
    src = open(a.src, encoding="utf-8").read().split("\n")
    ref = open(a.ref, encoding="utf-8").read().split("\n")
    if src and src[-1] == "":
        src = src[:-1]
    ref = ref[: len(src)]
    assert len(src) == len(ref), "SRC and REF differ in length"
    keep = [i for i, s in enumerate(src) if formats_and_braces(s) or TAG.search(s) or ENTITY.search(s)]
    if a.limit:
        keep = keep[: a.limit]
    src, ref = [src[i] for i in keep], [ref[i] for i in keep]
    print(f"{len(src)} lines with placeholders", file=sys.stderr)
    before_cmd = (a.before_cli, []) if a.before_cli else (a.cli, ["--no-repair-placeholders"])
    rows = [("reference", measure(src, ref, ref)),
            ("before", measure(src, translate(before_cmd[0], a.model, src, before_cmd[1]), ref)),
            ("after", measure(src, translate(a.cli, a.model, src, []), ref))]
    for name, m in rows:
        if a.markdown:
            print(f"| {name} | {m['kept']:.2f} % of {m['total']} | {m['exact_lines']} of {len(src)} | "
                  f"{m['markup']:.2f} % of {m['markup_lines']} | {m['entities']:.2f} % of {m['entity_total']} | "
                  f"{m['bleu']:.2f} | {m['chrf']:.2f} |")
        else:
            print(f"{name}: formats and braces kept {m['kept']:.2f} % of {m['total']}, lines exact "
                  f"{m['exact_lines']}/{len(src)}; markup well-formed {m['markup']:.2f} % of {m['markup_lines']}; "
                  f"entities kept {m['entities']:.2f} % of {m['entity_total']}; BLEU {m['bleu']:.2f} chrF2 "
                  f"{m['chrf']:.2f}")


if __name__ == "__main__":
    main()

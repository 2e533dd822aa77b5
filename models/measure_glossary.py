#!/usr/bin/env python3
"""Glossaries, measured (TranslatorOptions::glossary, the CLI's --glossary).

  .venv/bin/python models/measure_glossary.py MODEL DEV_SRC DEV_REF [--cli build/bin/softalign]
      [--terms 50] [--sentences 200] [--pool 3000] [--write-glossary FILE] [--markdown]

A glossary of --terms source words and their usual translation in the
references, made from the first --pool dev sentences without looking at the
runtime's glossary code: a source word (4 letters or more, not a function word,
in 4 sentences or more) and the reference word with the highest Dice score
over the sentences holding it (in at least half of them). Half of the terms,
where there are enough, are ones the model translates otherwise (its output
lacks the term's target in a quarter or more of the sentences whose reference
has it). The first --sentences sentences holding a term are translated
without and with the glossary (the model's default search), and printed:
- the guarantee: of the terms' occurrences in the sources (the runtime's
  matches, `--json`'s glossary_matches), the share whose target term is in
  the output (as a word, first letter in either case, as a part of a
  compound or inflected, as softalign/glossary.hpp says), how many of them
  the model did not produce by itself, and how many are the exact form given
  as a word;
- BLEU and chrF2 (sacrebleu defaults) without and with the glossary, on all
  those sentences and on "the rest": hypotheses and references with every
  glossary target term removed, so that the terms themselves do not count.
"""
import json
import re
import sys
from collections import Counter

import sacrebleu

from measure_copy import has_token, measure_arguments, run_cli

FUNCTION_WORDS = set("""about above after again against also because been before being below between both
could does doing down during each even from further have having here into just more most much must
only other over same should some such than that their them then there these they this those through
under until upon very want were what when where which while whom will with within without would your
yours available using used allows provides package contains include includes including""".split())


def words(text):
    return re.findall(r"[^\W\d_]+", text)


def make_glossary(src, ref, hyp, n_terms):
    df_s, df_t, co, surface = Counter(), Counter(), {}, Counter()
    for s, r in zip(src, ref):
        sw = {w.lower() for w in words(s) if len(w) >= 4 and w.lower() not in FUNCTION_WORDS}
        tw = set()
        for w in words(r):
            if len(w) >= 3:
                tw.add(w.lower())
                surface[w] += 1
        df_s.update(sw)
        df_t.update(tw)
        for a in sw:
            co.setdefault(a, Counter()).update(tw)
    candidates = []
    for a, n in df_s.items():
        if n < 4:
            continue
        t, c = max(co[a].items(), key=lambda kv: (2 * kv[1] / (n + df_t[kv[0]]), kv[0]))
        if c < 0.6 * n or 2 * c / (n + df_t[t]) < 0.5:
            continue
        form = max((w for w in surface if w.lower() == t), key=lambda w: (surface[w], w))
        with_t = [i for i, (s, r) in enumerate(zip(src, ref))
                  if a in {w.lower() for w in words(s)} and has_token(r.lower(), t)]
        missed = sum(1 for i in with_t if not has_token(hyp[i].lower(), t))
        candidates.append((a, form, n, missed / max(1, len(with_t)) >= 0.25))
    candidates.sort(key=lambda c: (-c[2], c[0]))
    otherwise = [c for c in candidates if c[3]][: n_terms // 2]
    rest = [c for c in candidates if not c[3]][: n_terms - len(otherwise)]
    return sorted(otherwise + rest, key=lambda c: c[0])


def holds(text, t, exact=False):
    """How many times `text` holds the target term `t`, by the runtime's documented rule
    (softalign/glossary.hpp): first letter in either case; a word, the first part of a
    hyphenated compound, (5 bytes or more, small first letter) the end of a compound, or
    (4 bytes or more, ending in an ASCII letter) with an ending of one or two small ASCII letters or as
    the head of a closed compound (four small ASCII letters or more after it)."""
    lo, up = t[:1].lower() + t[1:], t[:1].upper() + t[1:]
    forms = "|".join(re.escape(f) for f in sorted({lo, up}))
    ending = "(?:[a-z]{1,2}|[a-z]{4,})?" if len(lo.encode()) >= 4 and re.fullmatch(r".*[A-Za-z]", lo) else ""
    if exact:  # the form as given (first letter in either case), as a word
        return len(re.findall(rf"(?<!\w)(?:{forms})(?!\w)", text))
    pattern = rf"(?<!\w)(?:{forms}){ending}(?=-|(?!\w))"
    if len(lo.encode()) >= 5 and lo != up:
        pattern += rf"|(?<=\w){re.escape(lo)}(?!\w)"
    return len(re.findall(pattern, text))


def remove_terms(text, targets):
    for t in targets:
        for form in {t, t[:1].upper() + t[1:]}:
            text = re.sub(rf"(?<![\w]){re.escape(form)}(?![\w])", " ", text)
    return " ".join(text.split())


def main():
    ap = measure_arguments(__doc__)
    ap.add_argument("--terms", type=int, default=50)
    ap.add_argument("--sentences", type=int, default=200)
    ap.add_argument("--pool", type=int, default=3000)
    ap.add_argument("--write-glossary", default="", help="where to write the glossary (TSV); default: a temp file")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    with open(args.src, encoding="utf-8") as f:
        src = [l.rstrip("\n") for l in f][: args.pool]
    with open(args.ref, encoding="utf-8") as f:
        ref = [l.rstrip("\n") for l in f][: len(src)]
    base = [args.cli, "translate", "-m", args.model]
    hyp_pool = run_cli(base, src)
    terms = make_glossary(src, ref, hyp_pool, args.terms)
    if len(terms) < args.terms:
        sys.exit(f"only {len(terms)} terms found in the first {len(src)} sentences: give a larger --pool")
    path = args.write_glossary
    if not path:
        import tempfile
        path = tempfile.mkstemp(suffix=".tsv")[1]
    with open(path, "w", encoding="utf-8") as f:
        f.write("# source\ttarget (models/measure_glossary.py)\n")
        for a, t, _, _ in terms:
            f.write(f"{a}\t{t}\n")
    target_of = {a: t for a, t, _, _ in terms}
    # The sentences: those holding a term (the runtime's matches decide).
    rows = run_cli(base + ["--glossary", path, "--json"], src)
    chosen = []
    for i, row in enumerate(rows):
        matches = json.loads(row).get("glossary_matches", []) if row else []
        if matches:
            raw = src[i].encode("utf-8")
            found = [raw[b:e].decode("utf-8") for b, e in matches]
            chosen.append((i, [f[:1].lower() + f[1:] for f in found], json.loads(row)["hypotheses"][0]["text"]))
        if len(chosen) == args.sentences:
            break
    if len(chosen) < args.sentences:
        sys.exit(f"only {len(chosen)} sentences hold a term: give a larger --pool")
    s_src = [src[i] for i, _, _ in chosen]
    s_ref = [ref[i] for i, _, _ in chosen]
    s_off = [hyp_pool[i] for i, _, _ in chosen]
    s_on = [h for _, _, h in chosen]
    # The guarantee, per occurrence.
    occurrences = kept = by_model = exact = 0
    for (_, found, _), off, on in zip(chosen, s_off, s_on):
        for a, n in Counter(found).items():
            t = target_of[a]
            def count(text):
                return holds(text, t)
            occurrences += n
            kept += min(n, count(on))
            exact += min(n, holds(on, t, exact=True))
            by_model += min(n, count(off))
    targets = sorted(set(target_of.values()), key=len, reverse=True)
    def scores(hyp, refs):
        return (sacrebleu.corpus_bleu(hyp, [refs]).score, sacrebleu.corpus_chrf(hyp, [refs]).score)
    full_off, full_on = scores(s_off, s_ref), scores(s_on, s_ref)
    rest_ref = [remove_terms(r, targets) for r in s_ref]
    rest_off = scores([remove_terms(h, targets) for h in s_off], rest_ref)
    rest_on = scores([remove_terms(h, targets) for h in s_on], rest_ref)
    n_otherwise = sum(1 for c in terms if c[3])
    print(f"glossary: {len(terms)} terms ({n_otherwise} the model translates otherwise), {path}")
    print(f"sentences: {len(chosen)} of the first {len(src)} dev sentences holding a term")
    print(f"term occurrences: {occurrences}; target term in the output: {kept} ({100 * kept / occurrences:.2f} %); "
          f"without the glossary: {by_model} ({100 * by_model / occurrences:.2f} %); "
          f"as the exact form given, as a word: {exact} ({100 * exact / occurrences:.2f} %)")
    if args.markdown:
        print("| | BLEU without | BLEU with | chrF2 without | chrF2 with |\n|---|---|---|---|---|")
        print(f"| all words | {full_off[0]:.2f} | {full_on[0]:.2f} | {full_off[1]:.2f} | {full_on[1]:.2f} |")
        print(f"| the rest (terms removed) | {rest_off[0]:.2f} | {rest_on[0]:.2f} | {rest_off[1]:.2f} | {rest_on[1]:.2f} |")
    else:
        print(f"BLEU all words: without {full_off[0]:.2f}, with {full_on[0]:.2f}; chrF2 {full_off[1]:.2f} -> {full_on[1]:.2f}")
        print(f"BLEU the rest (terms removed): without {rest_off[0]:.2f}, with {rest_on[0]:.2f}; "
              f"chrF2 {rest_off[1]:.2f} -> {rest_on[1]:.2f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Fits a model file's confidence calibration on dev, and measures it on test.

The runtime gives every translation features of what the model computed
(softalign/confidence.hpp: mean and least piece log-probability, attention
entropy and coverage, length ratio, copied and repaired spans, ...). This
script translates dev sets with the model's own defaults (as an app gets them),
scores each output with sentence-level chrF against its reference, and fits
the logistic map confidence = sigmoid(bias + w . features) to chrF / 100 (a
logistic regression on fractional targets: convex, solved by Newton's method,
a small ridge on the standardised weights). The fit goes into the model file
with `softalign-convert --confidence FIT.json`.

  # fit on dev (each --dev: a source file and its reference)
  python models/fit_confidence.py fit models/en-fr/en-fr.int8.softalign \\
      --dev runs/gettext-corpus/combined/en-fr/dev.en runs/gettext-corpus/combined/en-fr/dev.fr \\
      --dev runs/docs-corpus/en-fr/dev.en runs/docs-corpus/en-fr/dev.fr --out models/en-fr/confidence.json

  # measure a calibrated file on test sets (each --test: a name, a source, a reference)
  python models/fit_confidence.py evaluate models/en-fr/en-fr.int8.softalign \\
      --test DDTP ../shared/data/ddtp/en-fr/test.en ../shared/data/ddtp/en-fr/test.fr

`evaluate` prints, per test set: Pearson's r (and Spearman's rho) between the
confidence and sentence chrF, and the mean chrF of the lowest-confidence 10 %
of outputs against the rest's: the card's figures.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "build", "python"))

RIDGE = 1e-3  # on the standardised weights, per sentence


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def translate(model_path, sources, chunk=256):
    """The best hypothesis of each source with the model's defaults: (text, confidence, features)."""
    import softalign

    model = softalign.Model.load(model_path)
    tr = softalign.Translator(model)
    out = []
    t0 = time.time()
    for i in range(0, len(sources), chunk):
        for r in tr.translate_nbest(sources[i:i + chunk], nbest=1):
            if isinstance(r, Exception):
                raise SystemExit(f"translation failed: {r}")
            h = r.hypotheses[0]
            out.append((h.text, h.confidence, dict(h.confidence_features)))
        print(f"  {min(i + chunk, len(sources))}/{len(sources)} ({time.time() - t0:.0f} s)", file=sys.stderr,
              flush=True)
    return out, model


def sentence_chrf(hyps, refs):
    from sacrebleu.metrics import CHRF

    chrf = CHRF()  # chrF2, sacrebleu's defaults
    return np.array([chrf.sentence_score(h, [r]).score / 100.0 for h, r in zip(hyps, refs)])


def fit_logistic(x, y, ridge=RIDGE, iterations=50):
    """Weights w, bias b minimising the cross-entropy of sigmoid(x w + b) against y in [0, 1] plus
    ridge * n * |w|^2 (x standardised inside; w returned for the raw features)."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    n, d = z.shape
    theta = np.zeros(d)
    penalty = np.full(d, ridge * n)
    penalty[-1] = 0.0  # no ridge on the bias
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-z @ theta))
        grad = z.T @ (p - y) + penalty * theta
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    w = theta[:-1] / scale
    b = theta[-1] - float(np.sum(theta[:-1] * mean / scale))
    return w, b


def pearson(a, b):
    return float(np.corrcoef(a, b)[0, 1])


def spearman(a, b):
    def ranks(v):
        order = np.argsort(v, kind="stable")
        r = np.empty(len(v))
        r[order] = np.arange(len(v))
        return r
    return pearson(ranks(a), ranks(b))


def low_gap(conf, chrf, share=0.10):
    """Mean chrF of the lowest-confidence `share` of outputs, and of the rest."""
    k = max(1, int(round(share * len(conf))))
    order = np.argsort(conf, kind="stable")
    return float(chrf[order[:k]].mean()), float(chrf[order[k:]].mean())


def cmd_fit(a):
    names = None
    rows, targets, parts = [], [], []
    for src, ref in a.dev:
        sources, refs = read_lines(src), read_lines(ref)
        if len(sources) != len(refs):
            raise SystemExit(f"{src} and {ref} differ in length")
        print(f"{src}: {len(sources)} sentences", file=sys.stderr)
        out, model = translate(a.model, sources)
        names = names or list(out[0][2])
        rows += [[f[n] for n in names] for _, _, f in out]
        targets.append(sentence_chrf([t for t, _, _ in out], refs))
        parts.append(f"{os.path.normpath(src)} ({len(sources):,})")
    x = np.array(rows, dtype=np.float64)
    y = np.concatenate(targets)
    w, b = fit_logistic(x, y)
    fitted = 1.0 / (1.0 + np.exp(-(x @ w + b)))
    beam = model.config["decoding"]["beam"] if isinstance(model.config.get("decoding"), dict) else None
    fit = {
        "bias": round(float(b), 6),
        "weights": {n: round(float(v), 6) for n, v in zip(names, w)},
        "fitted_on": f"sentence chrF2 on dev: {', '.join(parts)}; the model's default search"
                     + (f" (beam {beam})" if beam else "") + f"; dev Pearson {pearson(fitted, y):.3f}",
    }
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(fit, f, indent=1, sort_keys=True)
        f.write("\n")
    lo, rest = low_gap(fitted, y)
    print(f"dev: {len(y)} sentences, Pearson {pearson(fitted, y):.3f}, Spearman {spearman(fitted, y):.3f}; "
          f"lowest 10 % chrF {100 * lo:.1f} against {100 * rest:.1f}; "
          f"uncalibrated (exp mean log-prob) Pearson {pearson(np.exp(x[:, names.index('mean_log_prob')]), y):.3f}")
    print(f"wrote {a.out}")


def cmd_evaluate(a):
    print("| test set | sentences | Pearson r | Spearman ρ | chrF2, lowest-confidence 10 % | chrF2, the rest |")
    print("|---|---|---|---|---|---|")
    for name, src, ref in a.test:
        sources, refs = read_lines(src), read_lines(ref)
        out, model = translate(a.model, sources)
        if not model.confidence_calibrated and not a.uncalibrated:
            raise SystemExit(f"{a.model} has no confidence calibration (softalign-convert --confidence); "
                             "--uncalibrated measures the fallback")
        conf = np.array([c for _, c, _ in out])
        chrf = sentence_chrf([t for t, _, _ in out], refs)
        lo, rest = low_gap(conf, chrf)
        print(f"| {name} | {len(sources):,} | {pearson(conf, chrf):.3f} | {spearman(conf, chrf):.3f} | "
              f"{100 * lo:.2f} | {100 * rest:.2f} |", flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fit", help="fit the calibration on dev sets")
    f.add_argument("model")
    f.add_argument("--dev", nargs=2, action="append", required=True, metavar=("SRC", "REF"))
    f.add_argument("--out", required=True, help="the fit (JSON) for softalign-convert --confidence")
    e = sub.add_parser("evaluate", help="measure a calibrated model file on test sets")
    e.add_argument("model")
    e.add_argument("--test", nargs=3, action="append", required=True, metavar=("NAME", "SRC", "REF"))
    e.add_argument("--uncalibrated", action="store_true", help="measure a file without calibration (the fallback)")
    a = p.parse_args(argv)
    {"fit": cmd_fit, "evaluate": cmd_evaluate}[a.command](a)


if __name__ == "__main__":
    main()

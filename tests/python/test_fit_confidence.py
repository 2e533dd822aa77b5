"""The confidence fit (models/fit_confidence.py): the logistic regression on fractional
targets recovers known weights on raw (unstandardised) features, the figures it prints
(Pearson, Spearman, the lowest 10 %'s mean) against hand-worked values, and a fit file
the converter reads (names the runtime knows)."""
import json
import os
import re
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models"))

import fit_confidence as F  # noqa: E402


def test_fit_recovers_the_weights_of_the_raw_features():
    rng = np.random.default_rng(7)
    n = 20000
    # Features on very different scales and offsets, as the real ones are.
    x = np.column_stack([rng.normal(-0.5, 0.3, n), rng.normal(3.0, 1.0, n), rng.integers(0, 2, n)])
    w_true, b_true = np.array([2.0, -0.5, 1.0]), 0.7
    p = 1 / (1 + np.exp(-(x @ w_true + b_true)))
    y = rng.binomial(1, p).astype(float)  # the expectation of y is p: the fit's target
    w, b = F.fit_logistic(x, y, ridge=0.0)
    assert np.allclose(w, w_true, atol=0.1), w
    assert abs(b - b_true) < 0.15, b
    # Fractional targets work the same (chrF / 100 is one).
    w2, b2 = F.fit_logistic(x, p, ridge=0.0)
    assert np.allclose(w2, w_true, atol=1e-3) and abs(b2 - b_true) < 1e-3
    # The ridge shrinks the weights, not the bias's role: the mean prediction stays close.
    w3, b3 = F.fit_logistic(x, y, ridge=1.0)
    assert np.all(np.abs(w3) < np.abs(w) + 1e-9)
    fitted = 1 / (1 + np.exp(-(x @ w3 + b3)))
    assert abs(fitted.mean() - y.mean()) < 0.02


def test_a_constant_feature_is_harmless():
    x = np.column_stack([np.linspace(-1, 1, 100), np.zeros(100)])
    y = (x[:, 0] > 0).astype(float) * 0.8 + 0.1
    w, b = F.fit_logistic(x, y)
    assert np.all(np.isfinite(w)) and np.isfinite(b)
    assert w[1] == 0.0


def test_figures():
    a = np.array([1.0, 2.0, 3.0, 4.0])
    assert abs(F.pearson(a, 2 * a + 1) - 1.0) < 1e-12
    assert abs(F.spearman(a, a ** 3) - 1.0) < 1e-12  # monotone: rank correlation 1
    conf = np.arange(20, dtype=float)           # the lowest 10 %: the first two
    chrf = np.concatenate([[0.1, 0.3], np.full(18, 0.9)])
    lo, rest = F.low_gap(conf, chrf)
    assert abs(lo - 0.2) < 1e-12 and abs(rest - 0.9) < 1e-12


def test_the_shipped_fits_name_only_runtime_features():
    header = open(os.path.join(ROOT, "runtime", "include", "softalign", "confidence.hpp"), encoding="utf-8").read()
    block = header[header.index("kConfidenceFeatureNames"):]
    names = set(re.findall(r'"([a-z_]+)"', block[:block.index("};")]))
    for pair in ("en-fr", "en-de"):
        fit = json.load(open(os.path.join(ROOT, "models", pair, "confidence.json"), encoding="utf-8"))
        assert set(fit["weights"]) <= names, set(fit["weights"]) - names
        assert np.isfinite(fit["bias"]) and all(np.isfinite(v) for v in fit["weights"].values())
        assert "chrF" in fit["fitted_on"]

"""The `softalign` Python module (platforms/python/) against the golden outputs.

- every golden tiny model (tests/golden/*/golden.json, converted to f32 by the
  golden_models fixture): greedy and beam-4 n-best ids, scores and attention
  rows equal PyTorch's;
- the shipped models: the exact outputs of tests/models/*.expected.tsv (the
  CLI's), greedy and beam 4, one sentence at a time and as a list;
- the GIL is released while translating; errors are softalign.Error (in a
  list, each failed item's in its place).

ctest sets PYTHONPATH to the module's build folder, SOFTALIGN_GOLDEN_BIN_DIR,
and SOFTALIGN_BINDINGS_REQUIRED=1 (a missing module then fails instead of skipping).
"""
import glob
import json
import os
import threading
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GOLDEN_SRC = os.path.join(ROOT, "tests", "golden")
GOLDEN_BIN = os.environ.get("SOFTALIGN_GOLDEN_BIN_DIR", os.path.join(ROOT, "build", "golden"))

try:
    import softalign
except ImportError:
    if os.environ.get("SOFTALIGN_BINDINGS_REQUIRED") == "1":
        raise
    pytest.skip("the softalign module is not built (pybind11-dev, python3-dev)", allow_module_level=True)

GOLDEN = sorted(os.path.basename(os.path.dirname(p)) for p in glob.glob(os.path.join(GOLDEN_SRC, "*", "golden.json")))
SCORE_TOL_PER_TOKEN = 1e-5
ATTN_TOL = 1e-5


def golden(name):
    with open(os.path.join(GOLDEN_SRC, name, "golden.json"), encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.parametrize("name", GOLDEN)
def test_golden_nbest(name):
    g = golden(name)
    model = softalign.Model.load(os.path.join(GOLDEN_BIN, f"{name}.f32.softalign"))
    search = {s["name"]: s for s in g["searches"]}
    limits = search["greedy"]
    # The golden texts are the model's own: copy-through off (test_copy_through tests it).
    tr = softalign.Translator(model, beam=max(s["beam"] for s in g["searches"]),
                              max_len_a=limits["max_len_a"], max_len_b=limits["max_len_b"], copy_through=False)
    for sent in g["sentences"]:
        for run in sent["search"]:
            s = search[run["name"]]
            r = tr.translate_nbest(sent["src_text"], beam=s["beam"], nbest=s["nbest"], alpha=s["alpha"],
                                   beta=s["beta"], attention=True, beam_rules=s.get("beam_rules", "softalign"))
            assert r.source_ids == sent["src_ids"]
            want = run["hyps"]
            assert [h.ids for h in r.hypotheses] == [w["ids"] for w in want], (name, run["name"], sent["src_text"])
            for h, w in zip(r.hypotheses, want):
                tol = SCORE_TOL_PER_TOKEN * (len(w["ids"]) + 1)
                assert h.score == pytest.approx(w["score"], abs=tol)
                assert h.log_prob == pytest.approx(w["logprob"], abs=tol)
                att = h.attention
                assert att.shape == (len(w["attn"]), len(sent["src_ids"]))
                assert abs(att - w["attn"]).max() <= ATTN_TOL
            if run["name"] == "greedy":
                assert tr.translate(sent["src_text"], beam=1, beam_rules=s.get("beam_rules", "softalign")) == \
                    model.decode(want[0]["ids"])


def test_copy_through():
    # luong_dot's greedy translation of "with" holds <unk> (id 1): replaced by
    # the source word by default, left as SentencePiece renders it with copy_through=False.
    g = golden("luong_dot")
    greedy = next(s for s in g["searches"] if s["name"] == "greedy")
    ids = g["sentences"][0]["search"][0]["hyps"][0]["ids"]
    assert g["sentences"][0]["src_text"] == "with" and 1 in ids
    model = softalign.Model.load(os.path.join(GOLDEN_BIN, "luong_dot.f32.softalign"))
    limits = dict(max_len_a=greedy["max_len_a"], max_len_b=greedy["max_len_b"])
    on = softalign.Translator(model, beam=1, **limits).translate("with")
    off = softalign.Translator(model, beam=1, copy_through=False, **limits).translate("with")
    assert off == model.decode(ids) and "\u2047" in off
    assert "\u2047" not in on and "with" in on.split()
    # The protected spans of a source, as byte ranges of its UTF-8 text.
    src = "voir libfoo-dev et http://example.org/a_b"
    r = softalign.Translator(model, beam=1, **limits).translate_nbest(src)
    assert [src.encode()[b:e].decode() for b, e in r.protected_spans] == ["libfoo-dev", "http://example.org/a_b"]
    assert softalign.Translator(model, beam=1, copy_through=False, **limits).translate_nbest(src).protected_spans == []


def shipped_expectations():
    cases = []
    for tsv in sorted(glob.glob(os.path.join(ROOT, "tests", "models", "*.expected.tsv"))):
        name = os.path.basename(tsv)[: -len(".expected.tsv")]
        pair = name.split(".")[0]
        path = os.path.join(ROOT, "models", pair, f"{name}.softalign")
        rows = [line.rstrip("\n").split("\t") for line in open(tsv, encoding="utf-8")
                if line.strip() and not line.startswith("#")]
        cases.append(pytest.param(path, rows, id=name))
    return cases


@pytest.mark.parametrize("path,rows", shipped_expectations())
def test_shipped_model_exact_outputs(path, rows):
    model = softalign.Model.load(path)
    tr = softalign.Translator(model, beam=4, max_len_a=1.5, max_len_b=10)
    sources = [r[0] for r in rows]
    greedy = [tr.translate(s, beam=1) for s in sources]
    beam4 = [tr.translate(s, beam=4, alpha=0.6, beta=0.0) for s in sources]
    assert greedy == [r[1] for r in rows]
    assert beam4 == [r[2] for r in rows]
    assert tr.translate(sources, beam=1) == greedy  # a list: translate_batch, in order
    nbest = tr.translate_nbest(sources[:2], beam=4, nbest=3, alpha=0.6, beta=0.0, alignment=True)
    assert [r.hypotheses[0].text for r in nbest] == beam4[:2]
    assert all(len(r.hypotheses) == 3 for r in nbest)
    assert all(r.hypotheses[0].alignment for r in nbest)


def test_model_properties_and_errors():
    model = softalign.Model.load(os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    assert (model.src_lang, model.tgt_lang, model.weight_type) == ("en", "fr", "i8")
    assert model.config["variant"] in ("bahdanau", "luong", "encdec")
    assert model.file_bytes == os.path.getsize(os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    ids, pieces = model.encode("A simple text editor.")
    assert len(ids) == len(pieces) + 1
    assert softalign.__version__.count(".") == 2
    with pytest.raises(softalign.Error, match="not_found"):
        softalign.Model.load(os.path.join(HERE, "no-such-model.softalign"))
    with pytest.raises(softalign.Error, match="invalid_model"):
        softalign.Model.from_bytes(b"not a model at all, just bytes" * 4)
    with pytest.raises(softalign.Error, match="invalid_argument"):
        softalign.Translator(model, beam=0)
    tr = softalign.Translator(model, beam=2)
    with pytest.raises(softalign.Error):
        tr.translate("x", beam=8)  # more than prepared
    with pytest.raises(TypeError):
        tr.translate(42)


def test_long_input_is_split_by_default_and_a_list_fails_item_by_item():
    model = softalign.Model.load(os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    long = " ".join(["A simple text editor."] * 60)  # 301 pieces, over max_source_tokens (128)
    # Split by default, like the C++, C and CLI defaults (TranslatorOptions::long_input).
    assert softalign.Translator(model, beam=1).translate(long)
    strict = softalign.Translator(model, beam=1, split_long_input=False)
    with pytest.raises(softalign.Error, match="input_too_long"):
        strict.translate(long)  # a str raises
    # In a list, the item that fails gives a softalign.Error in its place; the others their results.
    good = ["Open file", "A simple text editor."]
    out = strict.translate([good[0], long, good[1]])
    assert isinstance(out[1], softalign.Error) and str(out[1]).startswith("input_too_long: ")
    assert [out[0], out[2]] == strict.translate(good)
    nbest = strict.translate_nbest([good[0], long, good[1]], nbest=1)
    assert isinstance(nbest[1], softalign.Error) and str(nbest[1]).startswith("input_too_long: ")
    assert [nbest[0].text, nbest[2].text] == [out[0], out[2]]
    # An error of the call itself (a beam over the prepared one) still raises.
    with pytest.raises(softalign.Error, match="invalid_argument"):
        strict.translate(good + [long], beam=8)


def test_glossary():
    model = softalign.Model.load(os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    terms = softalign.read_glossary("# terms\nsave\tsauvegarder\nfile\tdossier\n")
    assert terms == [("save", "sauvegarder"), ("file", "dossier")]
    plain = softalign.Translator(model)
    tr = softalign.Translator(model, glossary=terms)
    assert "dossier" not in plain.translate("Save the file.")
    out = tr.translate("Save the file.")
    assert "Sauvegarder" in out and "dossier" in out
    assert tr.translate_nbest(["Save the file."])[0].glossary_matches == [(0, 4), (9, 13)]
    with pytest.raises(softalign.Error, match="glossary line 2"):
        softalign.read_glossary("save\tsauvegarder\nno tab\n")
    with pytest.raises(softalign.Error, match="another target"):
        softalign.Translator(model, glossary=[("file", "fichier"), ("File", "dossier")])


def test_confidence():
    # Each hypothesis has a confidence in [0, 1] and the features it is made of; the shipped file is
    # calibrated (softalign-convert --confidence), so it is the logistic map of those features.
    model = softalign.Model.load(os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    assert model.confidence_calibrated
    assert "chrF" in model.confidence_fitted_on
    tr = softalign.Translator(model)
    good, bad = tr.translate_nbest(["This package contains the documentation.", "I love you."], nbest=2)
    for r in (good, bad):
        for h in r.hypotheses:
            assert 0.0 <= h.confidence <= 1.0
            f = h.confidence_features
            assert list(f) == ["mean_log_prob", "min_log_prob", "low_prob_share", "attention_entropy",
                               "uncovered_source", "length_ratio", "source_length", "copied_share", "repaired",
                               "repeated_word", "truncated", "source_pieces_per_word", "target_pieces_per_word",
                               "byte_length_ratio"]
            assert f["min_log_prob"] <= f["mean_log_prob"] + 1e-6
    assert good.hypotheses[0].confidence > bad.hypotheses[0].confidence
    batch = tr.translate_batch(["This package contains the documentation.", "I love you."], num_hypotheses=1)
    assert [b.confidences[0] for b in batch] == pytest.approx([good.hypotheses[0].confidence,
                                                               bad.hypotheses[0].confidence])


def test_nul_in_names_is_refused():
    path = os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign")
    # A path or an option name with a NUL: refused, not cut at the NUL (which loaded `path`).
    with pytest.raises(ValueError, match="path"):
        softalign.Model.load(path + "\x00.other")
    model = softalign.Model.load(path)
    with pytest.raises(softalign.Error, match="invalid_argument: kernels"):
        softalign.Translator(model, kernels="\x00bogus")  # was the default kernels
    with pytest.raises(softalign.Error, match="invalid_argument: device"):
        softalign.Translator(model, device="cpu\x00x")


# Issue 49: one rule for bad text (docs/guarantees.md): a lone surrogate (a str that UTF-8 cannot
# encode) and a NUL are invalid text, as invalid UTF-8 bytes are: softalign.Error invalid_utf8 (in
# a list, in the item's place), or with replace_invalid_utf8=True one U+FFFD each.
BAD_TEXTS = ["a\udc80b", "x\ud800y", "Open\x00 file", "\udfff"]


def test_lone_surrogates_and_nul_are_invalid_text():
    model = softalign.Model.load(os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    tr = softalign.Translator(model, beam=1, max_batch=4)
    for text in BAD_TEXTS:
        with pytest.raises(softalign.Error, match="^invalid_utf8: "):
            tr.translate(text)
        with pytest.raises(softalign.Error, match="^invalid_utf8: "):
            tr.translate_nbest(text)
        with pytest.raises(softalign.Error, match="invalid_utf8"):
            model.encode(text)
        with pytest.raises(softalign.Error, match="invalid_utf8"):  # a prefix is text too
            tr.translate_nbest("Open file", prefix="Ouvrir" + text)
        # In a list the item fails alone, in its place; the others are translated.
        out = tr.translate(["One file.", text, "Open file"])
        assert isinstance(out[1], softalign.Error) and str(out[1]).startswith("invalid_utf8: "), out
        assert [out[0], out[2]] == tr.translate(["One file.", "Open file"])
        nbest = tr.translate_nbest(["One file.", text])
        assert isinstance(nbest[1], softalign.Error) and str(nbest[1]).startswith("invalid_utf8: ")
        batch = tr.translate_batch(["One file.", text, "Open file"])
        assert isinstance(batch[1], softalign.Error) and str(batch[1]).startswith("invalid_utf8: ")
        assert [batch[0].hypotheses[0], batch[2].hypotheses[0]] == [out[0], out[2]]
    # A glossary term is text too (glossary terms are checked as options: invalid_argument).
    with pytest.raises(softalign.Error, match="^invalid_argument: .*not valid UTF-8"):
        softalign.Translator(model, glossary=[("fi\udc80le", "fichier")])
    with pytest.raises(softalign.Error, match="^invalid_argument: .*not valid UTF-8"):
        softalign.read_glossary("file\tfich\x00ier\n")
    # The byte offset is the UTF-8 one (surrogatepass: a surrogate is 3 bytes, as in UTF-8).
    with pytest.raises(softalign.Error, match="at byte 5"):
        tr.translate("caf\u00e9\udc80")


def test_replace_invalid_utf8_replaces_lone_surrogates_and_nul():
    model = softalign.Model.load(os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    tr = softalign.Translator(model, beam=1, replace_invalid_utf8=True)
    for text in BAD_TEXTS:
        # One U+FFFD for each surrogate or NUL: the same source pieces and translation.
        fixed = "".join("\ufffd" if "\ud800" <= c <= "\udfff" or c == "\x00" else c for c in text)
        assert tr.translate_nbest(text).source_pieces == tr.translate_nbest(fixed).source_pieces
        assert tr.translate(text) == tr.translate(fixed)
        assert tr.translate(["One file.", text]) == tr.translate(["One file.", fixed])
        assert tr.translate_batch([text])[0].hypotheses == tr.translate_batch([fixed])[0].hypotheses


def test_float_options_refuse_nan():
    model = softalign.Model.load(os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    tr = softalign.Translator(model, beam=1)
    for name in ("alpha", "beta", "max_len_a", "max_len_b"):
        for value in (float("nan"), float("inf"), -1.0):
            with pytest.raises(softalign.Error, match="invalid_argument"):
                softalign.Translator(model, **{name: value})
            with pytest.raises(softalign.Error, match="invalid_argument"):
                tr.translate("Open file", **{name: value})


def test_device_choice():
    model = softalign.Model.load(os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    cpu = softalign.Translator(model, beam=1, device="cpu")
    assert (cpu.backend, cpu.backend_reason, cpu.device) == ("cpu", "backend=cpu", "")
    default = softalign.Translator(model, beam=1)
    assert (default.backend, default.backend_reason) == ("cpu", "backend=cpu")
    auto = softalign.Translator(model, beam=1, device="auto")
    assert auto.backend in ("cpu", "vulkan") and auto.backend_reason.startswith("backend=auto")
    with pytest.raises(softalign.Error, match="invalid_argument: device must be"):
        softalign.Translator(model, device="gpu")
    try:
        vk = softalign.Translator(model, beam=1, device="vulkan")
    except softalign.Error as e:  # a build or a machine without Vulkan: the reason says which
        assert "unsupported: backend=vulkan: " in str(e)
        return
    assert vk.backend == "vulkan" and vk.device
    text = "A simple text editor."
    assert vk.translate(text) == cpu.translate(text)


def ticks_while(target):
    """(loop iterations the calling thread makes while `target` runs in another thread, seconds it took)."""
    entered, span = threading.Event(), []

    def work():
        entered.set()
        t0 = time.perf_counter()
        target()
        span.append(time.perf_counter() - t0)

    worker = threading.Thread(target=work)
    worker.start()
    entered.wait()
    ticks = 0
    while worker.is_alive():
        ticks += 1
    worker.join()
    return ticks, span[0]


def test_gil_released_while_translating():
    model = softalign.Model.load(os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    tr = softalign.Translator(model, beam=4)
    sentences = [line.strip() for line in open(os.path.join(ROOT, "tests", "models", "en-fr.sources.txt"),
                                               encoding="utf-8") if line.strip() and not line.startswith("#")]
    expected = tr.translate(sentences)
    out = []
    # The loop's speed beside a thread that sleeps (which lets go of the GIL) ...
    free_ticks, free_time = ticks_while(lambda: time.sleep(0.3))
    # ... and beside one that translates: were the GIL held, the loop would run
    # only in the few ms around the call (one switch interval, 5 ms, each side).
    ticks, busy_time = ticks_while(lambda: out.append(tr.translate(sentences * 20)))
    assert out[0][: len(sentences)] == expected
    assert busy_time > 0.05
    expected_ticks = free_ticks / free_time * busy_time
    assert ticks > 0.1 * expected_ticks, (
        f"the main thread ran {ticks} loop iterations in {busy_time:.3f} s of translation "
        f"({free_ticks / free_time:.0f}/s beside a sleeping thread)")


def test_translators_in_threads_agree():
    model = softalign.Model.load(os.path.join(GOLDEN_BIN, "bahdanau.f32.softalign"))
    sources = [s["src_text"] for s in golden("bahdanau")["sentences"]] * 10
    want = softalign.Translator(model, beam=2).translate(sources)
    shared = softalign.Translator(model, beam=2)  # one translator, calls serialised by its lock
    out = [None] * 4

    def work(i):
        own = softalign.Translator(model, beam=2)
        out[i] = (own.translate(sources), shared.translate(sources))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(o == (want, want) for o in out)


def test_ensembles_match_golden():
    """Translator([a, b, ...]) averages the members' log-probabilities: the
    n-best of tests/golden/ensembles.json (PyTorch's), for its entries without
    a target prefix (the prefix is tested on the shipped model below)."""
    with open(os.path.join(GOLDEN_SRC, "ensembles.json"), encoding="utf-8") as f:
        g = json.load(f)
    search = {s["name"]: s for s in g["searches"]}
    limits = search["greedy"]
    compared = 0
    for ens in g["ensembles"]:
        members = [softalign.Model.load(os.path.join(GOLDEN_BIN, f"{n}.f32.softalign")) for n in ens["members"]]
        tr = softalign.Translator(members, beam=max(s["beam"] for s in g["searches"]), max_len_a=limits["max_len_a"],
                                  max_len_b=limits["max_len_b"], copy_through=False)
        assert len(tr.models) == len(members)
        texts = {tuple(s["src_ids"]): s["src_text"] for s in golden(ens["members"][0])["sentences"]}
        for sent in ens["sentences"]:
            if sent["prefix"]:
                continue
            for run in sent["search"]:
                s = search[run["name"]]
                r = tr.translate_nbest(texts[tuple(sent["src_ids"])], beam=s["beam"], nbest=s["nbest"],
                                       alpha=s["alpha"], beta=s["beta"])
                assert [h.ids for h in r.hypotheses] == [w["ids"] for w in run["hyps"]], (ens["members"], run["name"])
                for h, w in zip(r.hypotheses, run["hyps"]):
                    assert h.score == pytest.approx(w["score"], abs=SCORE_TOL_PER_TOKEN * (len(w["ids"]) + 1))
                compared += 1
    assert compared > 0
    with pytest.raises(TypeError):
        softalign.Translator([])
    with pytest.raises(TypeError):
        softalign.Translator(["not a model"])


def test_prefix_batch_and_self_ensemble_on_shipped_model():
    model = softalign.Model.load(os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    tr = softalign.Translator(model, beam=4)
    # A forced target prefix: every hypothesis continues it.
    r = tr.translate_nbest("A simple text editor.", nbest=3, prefix="Un éditeur")
    assert len(r.hypotheses) == 3
    assert all(h.text.startswith("Un éditeur") for h in r.hypotheses), [h.text for h in r.hypotheses]
    plain = tr.translate_nbest("A simple text editor.", nbest=1)
    assert r.hypotheses[0].log_prob <= plain.hypotheses[0].log_prob + 1e-4  # forced tokens cannot score better
    # An ensemble of one model twice is that model: (x + x) / 2 = x in floats.
    twice = softalign.Translator([model, model], beam=4)
    for text in ("A simple text editor.", "Tools to manage the files of a project."):
        a, b = tr.translate_nbest(text, nbest=2), twice.translate_nbest(text, nbest=2)
        assert [h.ids for h in a.hypotheses] == [h.ids for h in b.hypotheses]
        assert [h.score for h in a.hypotheses] == [h.score for h in b.hypotheses]
    # Batches decoded together give each sentence its result alone.
    texts = ["This package contains the documentation.", "Open file", "Fonts for the desktop",
             "Command line tools to convert images between formats.", "Python bindings"] * 2
    together = softalign.Translator(model, beam=4, max_batch=8)
    for beam in (1, 4):
        assert together.translate(texts, beam=beam) == tr.translate(texts, beam=beam)


def test_max_line_bytes_and_copy_load(tmp_path):
    path = os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign")
    # copy=True: the file may be rewritten in place afterwards (a mapped one would raise SIGBUS).
    copy = tmp_path / "copy.softalign"
    copy.write_bytes(open(path, "rb").read())
    model = softalign.Model.load(str(copy), copy=True)
    with open(copy, "r+b") as f:
        f.truncate(100)
    tr = softalign.Translator(model, beam=1, max_line_bytes=40)
    assert tr.translate("Open file")
    with pytest.raises(softalign.Error, match="input_too_long: .*max_line_bytes 40"):
        tr.translate("x" * 41)
    out = tr.translate(["Open file", "y" * 41])
    assert out[0] and isinstance(out[1], softalign.Error)


def test_translate_batch_ctranslate2_names():
    """Translator.translate_batch: CTranslate2's argument and result names over translate_batch."""
    model = softalign.Model.load(os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    tr = softalign.Translator(model, beam=4, max_batch=4)
    assert tr.max_batch == 4
    texts = ["This package contains the documentation.", "Open file", "Fonts for the desktop",
             "Command line tools to convert images between formats.", "Python bindings", "A simple text editor."]
    best = tr.translate(texts)
    out = tr.translate_batch(texts)
    assert all(isinstance(r, softalign.TranslationResult) for r in out)
    assert [r.hypotheses for r in out] == [[b] for b in best]  # the translator's nbest (1): one str each
    assert all(r.scores == [] and r.alignment == [] for r in out)  # only on request
    # beam_size and num_hypotheses as translate_nbest's beam and nbest; scores best first.
    out = tr.translate_batch(texts, beam_size=4, num_hypotheses=3, return_scores=True, return_alignment=True)
    nbest = tr.translate_nbest(texts, beam=4, nbest=3, alignment=True)
    for r, n in zip(out, nbest):
        assert r.hypotheses == [h.text for h in n.hypotheses]
        assert r.scores == [h.score for h in n.hypotheses] and r.scores == sorted(r.scores, reverse=True)
        assert r.alignment == [h.word_alignment for h in n.hypotheses] and r.alignment[0]
    greedy = tr.translate_batch(texts, beam_size=1)
    assert [r.hypotheses[0] for r in greedy] == tr.translate(texts, beam=1)
    # max_batch_size: chunks of at most that many (sorted by length), results in input order.
    for size in (None, 0, 1, 2, 4):
        assert [r.hypotheses[0] for r in tr.translate_batch(texts, max_batch_size=size)] == best, size
    with pytest.raises(ValueError, match=r"max_batch \(4"):
        tr.translate_batch(texts, max_batch_size=5)
    with pytest.raises(ValueError, match="max_batch"):
        tr.translate_batch(texts, max_batch_size=-1)
    # source: a list of str only (no str, no lists of tokens).
    with pytest.raises(TypeError, match="list of str"):
        tr.translate_batch("Open file")
    with pytest.raises(TypeError, match="tokens"):
        tr.translate_batch([["\u2581Open", "\u2581file"]])
    assert tr.translate_batch([]) == []
    assert "hypotheses=" in repr(out[0]) and "scores=" in repr(out[0])


def test_translator_batches_lists_by_default():
    """Translator(...) without max_batch is prepared for lists (the library's kListBatch shared among
    the threads), not the library's max_batch 1; a given max_batch is kept as given."""
    model = softalign.Model.load(os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    assert softalign.option_defaults()["max_batch"] == 1  # the library's default, for the C/C++ API
    assert softalign.Translator(model).max_batch == 16
    assert softalign.Translator(model, threads=4).max_batch == 4
    assert softalign.Translator(model, threads=3).max_batch == 6
    assert softalign.Translator(model, max_batch=1).max_batch == 1
    assert softalign.Translator(model, max_batch=20, threads=2).max_batch == 20
    # Batched results are each sentence's own: the same as max_batch 1 gives.
    texts = ["This package contains the documentation.", "Open file", "Fonts for the desktop", "Python bindings"]
    one = softalign.Translator(model, max_batch=1)
    assert [r.hypotheses[0] for r in softalign.Translator(model).translate_batch(texts, beam_size=1)] == \
        [r.hypotheses[0] for r in one.translate_batch(texts, beam_size=1)]


def test_translate_batch_target_prefix():
    """translate_batch(target_prefix=...): one str for all, or one per text (None or '' for none),
    each text's hypotheses as translate_nbest(prefix=...) gives them."""
    model = softalign.Model.load(os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    tr = softalign.Translator(model, beam=4, max_batch=4)
    texts = ["A simple text editor.", "Open file", "Fonts for the desktop", "Python bindings", "Open file"]
    prefixes = ["Un", None, "Polices", "", "Le"]
    out = tr.translate_batch(texts, target_prefix=prefixes, num_hypotheses=2, return_scores=True)
    for r, text, prefix in zip(out, texts, prefixes):
        want = tr.translate_nbest(text, prefix=prefix or "", nbest=2)
        assert r.hypotheses == [h.text for h in want.hypotheses], (text, prefix)
        assert r.scores == [h.score for h in want.hypotheses]
        assert all(h.startswith(prefix or "") for h in r.hypotheses)
    assert out[1].hypotheses != out[4].hypotheses  # the same text, its own prefix each
    same = tr.translate_batch(texts, target_prefix="Le")
    assert [r.hypotheses[0] for r in same] == [r.text for r in tr.translate_nbest(texts, prefix="Le")]
    assert [r.hypotheses for r in tr.translate_batch(texts, target_prefix=None)] == \
        [r.hypotheses for r in tr.translate_batch(texts)]
    with pytest.raises(ValueError, match="2 prefixes for 5 texts"):
        tr.translate_batch(texts, target_prefix=["Un", "Le"])
    with pytest.raises(TypeError, match="target_prefix"):
        tr.translate_batch(texts, target_prefix=3)
    with pytest.raises(TypeError, match="target_prefix"):
        tr.translate_batch(texts, target_prefix=[1, 2, 3, 4, 5])
    # A deadline covers the whole call: what is not done when it passes gets DeadlineExceeded.
    long = " ".join(["A simple text editor with a long line of words."] * 4)
    slow = tr.translate_batch([long] * 8 + ["Open file"] * 8, target_prefix=["Un"] * 8 + ["Le"] * 8, timeout_ms=1)
    assert all(isinstance(r, softalign.DeadlineExceeded) for r in slow[8:]), slow[8:]


def test_translate_batch_failed_item_and_call_errors():
    model = softalign.Model.load(os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign"))
    strict = softalign.Translator(model, beam=2, max_batch=2, split_long_input=False)
    long = " ".join(["A simple text editor."] * 60)  # over max_source_tokens
    good = ["Open file", "A simple text editor.", "Python bindings"]
    for size in (None, 1):
        out = strict.translate_batch([good[0], long, good[1], good[2]], max_batch_size=size)
        # As translate(list): the failed item is a softalign.Error in its place, not raised.
        assert isinstance(out[1], softalign.Error) and str(out[1]).startswith("input_too_long: ")
        assert [out[0].hypotheses[0], out[2].hypotheses[0], out[3].hypotheses[0]] == strict.translate(good)
    # An error of the call itself raises, an empty list included.
    with pytest.raises(softalign.Error, match="invalid_argument"):
        strict.translate_batch(good, beam_size=8)  # over the prepared beam
    with pytest.raises(softalign.Error, match="invalid_argument"):
        strict.translate_batch([], beam_size=8)
    with pytest.raises(softalign.Error, match="invalid_argument"):
        strict.translate_batch(good, beam_size=2, num_hypotheses=3)  # more than the beam

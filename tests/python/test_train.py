"""The trainer: one-step smoke through the CLIs, exact resume after a stop and after a kill."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
import torch
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "..", "models")
sys.path.insert(0, MODELS)

from softalign_ref.train import Trainer, load_recipe, RecipeError  # noqa: E402
from softalign_ref import export  # noqa: E402

EN = ["the cat sits on the mat", "a dog runs in the park", "development files for the library",
      "this package contains the documentation", "the tool converts files", "small program"]
FR = ["le chat est assis sur le tapis", "un chien court dans le parc",
      "fichiers de développement pour la bibliothèque", "ce paquet contient la documentation",
      "l'outil convertit des fichiers", "petit programme"]

TINY = {
    "name": "tiny",
    "model": {"variant": "bahdanau", "emb_size": 8, "enc_hidden": 8, "dec_hidden": 8, "att_hidden": 8,
              "maxout_size": 4, "max_src_len": 40, "dropout": 0.2},
    "tokenizer": {"src_vocab": 40, "tgt_vocab": 45},
    "training": {"threads": 1, "batch_tokens": 60, "eval_every": 4, "dev_bleu_sentences": 4,
                 "checkpoint_minutes": 100, "label_smoothing": 0.1, "log_every": 0},
    "decoding": {"beam": 2, "alpha": 0.6, "beta": 0.0, "max_len_a": 1.5, "max_len_b": 4, "nbest": 1},
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("corpus")
    src = [EN[i % 6] + " extra" * (i % 5) for i in range(48)]
    tgt = [FR[i % 6] + " encore" * (i % 4) for i in range(48)]
    for split, n in (("train", 48), ("dev", 8)):
        (d / f"{split}.en").write_text("\n".join(src[:n]) + "\n", encoding="utf-8")
        (d / f"{split}.fr").write_text("\n".join(tgt[:n]) + "\n", encoding="utf-8")
    return str(d)


def write_recipe(path, **training):
    r = {k: (dict(v) if isinstance(v, dict) else v) for k, v in TINY.items()}
    r["training"].update(training)
    with open(path, "w") as f:
        yaml.safe_dump(r, f)
    return str(path)


def weights(out):
    return torch.load(os.path.join(out, "checkpoint.pt"))["model"]


def assert_same_weights(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert torch.equal(a[k], b[k]), f"{k} differs"


def test_recipe_errors(tmp_path):
    p = tmp_path / "r.yaml"
    p.write_text("model: {variant: bahdanau, bogus: 1}\n")
    with pytest.raises(RecipeError, match="model.bogus"):
        load_recipe(str(p))
    with pytest.raises(RecipeError, match="not found"):
        load_recipe(str(tmp_path / "missing.yaml"))
    p.write_text("name: x\n")
    with pytest.raises(RecipeError, match="training.nope"):
        load_recipe(str(p), ["training.nope=1"])
    assert load_recipe(str(p), ["training.lr=0.5"])["training"]["lr"] == 0.5


def test_scheduled_lr_decay_is_applied_once_and_resumes_exactly(corpus, tmp_path):
    with pytest.raises(RecipeError, match="lr_decay_steps"):
        load_recipe(write_recipe(tmp_path / "bad.yaml"), ["training.lr_decay_steps=3"])
    with pytest.raises(RecipeError, match="lr_decay_steps"):
        load_recipe(write_recipe(tmp_path / "bad.yaml"), ["training.lr_decay_steps=[0]"])
    # no evaluation before the end (so no plateau decay): the lr is halved at step 3 alone
    recipe = load_recipe(write_recipe(tmp_path / "r.yaml", max_steps=6, eval_every=0),
                         ["training.lr_decay_steps=[3]"])
    lr = recipe["training"]["lr"]
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    st = Trainer(recipe, corpus, "en", "fr", a, quiet=True).run()
    assert st["step"] == 6 and st["lr"] == lr * recipe["training"]["lr_decay"]
    assert "scheduled learning-rate decay" in open(os.path.join(a, "train.log")).read()
    # stopped before the decay step and resumed: the same weights as the uninterrupted run
    Trainer(recipe, corpus, "en", "fr", b, quiet=True).run(stop_after_steps=2)
    assert Trainer(recipe, corpus, "en", "fr", b, quiet=True).run()["lr"] == st["lr"]
    assert_same_weights(weights(a), weights(b))


def test_lr_decay_by_training_minutes(corpus, tmp_path):
    with pytest.raises(RecipeError, match="lr_decay_minutes"):
        load_recipe(write_recipe(tmp_path / "bad.yaml"), ["training.lr_decay_minutes=[-1]"])
    # a tiny threshold: passed during the first step, so halved exactly once
    recipe = load_recipe(write_recipe(tmp_path / "r.yaml", max_steps=3, eval_every=0),
                         ["training.lr_decay_minutes=[1.0e-6]"])
    st = Trainer(recipe, corpus, "en", "fr", str(tmp_path / "a"), quiet=True).run()
    assert st["lr"] == recipe["training"]["lr"] * recipe["training"]["lr_decay"]
    assert "learning-rate decay at 1e-06 minutes" in open(os.path.join(str(tmp_path / "a"), "train.log")).read()


def test_exact_resume_after_a_stop(corpus, tmp_path):
    recipe = load_recipe(write_recipe(tmp_path / "r.yaml", max_steps=10))
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    Trainer(recipe, corpus, "en", "fr", a, quiet=True).run()
    # b: stops after 6 steps (mid-epoch, after an evaluation), then a fresh Trainer resumes.
    Trainer(recipe, corpus, "en", "fr", b, quiet=True).run(stop_after_steps=6)
    assert torch.load(os.path.join(b, "checkpoint.pt"))["state"]["step"] == 6
    st = Trainer(recipe, corpus, "en", "fr", b, quiet=True).run()
    assert st["step"] == 10 and st["stopped"] == "max_steps"
    assert_same_weights(weights(a), weights(b))
    # the same dev figures at the same steps
    ha = [(h["step"], h["dev_loss"]) for h in torch.load(os.path.join(a, "checkpoint.pt"))["state"]["history"]]
    hb = [(h["step"], h["dev_loss"]) for h in st["history"]]
    assert ha == hb


def test_a_raised_step_budget_continues_the_same_run(corpus, tmp_path):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    Trainer(load_recipe(write_recipe(tmp_path / "r12.yaml", max_steps=12)), corpus, "en", "fr", a, quiet=True).run()
    r8 = load_recipe(write_recipe(tmp_path / "r8.yaml", max_steps=8))
    assert Trainer(r8, corpus, "en", "fr", b, quiet=True).run()["stopped"] == "max_steps"
    assert Trainer(r8, corpus, "en", "fr", b, quiet=True).run()["step"] == 8  # already finished
    st = Trainer(load_recipe(write_recipe(tmp_path / "r12b.yaml", max_steps=12)), corpus, "en", "fr", b,
                 quiet=True).run()
    assert st["step"] == 12 and st["stopped"] == "max_steps"
    assert_same_weights(weights(a), weights(b))


def test_warm_start_continues_from_an_exported_model(corpus, tmp_path):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    Trainer(load_recipe(write_recipe(tmp_path / "r4.yaml", max_steps=4)), corpus, "en", "fr", a, quiet=True).run()
    model_dir = os.path.join(a, "model")
    saved = json.load(open(os.path.join(model_dir, "training_state.json")))
    assert saved["step"] == 4 and saved["batch_idx"] > 0 and saved["history"][-1]["step"] == 4
    # a shipped folder (models/ship.sh): fp16 weights, the state in training/
    shipped = tmp_path / "shipped"
    (shipped / "training").mkdir(parents=True)
    for name in ("src.spm.model", "tgt.spm.model"):
        shutil.copy(os.path.join(model_dir, name), shipped / name)
    shutil.copy(os.path.join(model_dir, "training_state.json"), shipped / "training")
    m, cfg = export.load(os.path.join(model_dir, "model.safetensors"))
    cfg.decoding = dict(cfg.decoding, beam=5, beta=0.2)  # a search chosen on dev, not the recipe's
    export.save(m, cfg, str(shipped / "model.safetensors"), dtype=torch.float16)

    r8 = load_recipe(write_recipe(tmp_path / "r8.yaml", max_steps=8))
    t = Trainer(r8, corpus, "en", "fr", b, quiet=True, warm_start=str(shipped))
    t.load_warm_start(str(shipped))
    for k, v in m.state_dict().items():  # the fp16 weights, within fp16 rounding
        assert torch.allclose(t.model.state_dict()[k], v, rtol=1e-3, atol=1e-4), k
    # the learning rate ramps up from lr / warm-up steps (Adam's moments start at zero)
    lr, w = r8["training"]["lr"], r8["training"]["warm_start_lr_warmup"]
    assert t.state["lr_warmup"] == [4, 4 + w] and t.step_lr() == pytest.approx(lr / w)
    t.state["step"] = 4 + w
    assert t.step_lr() == lr
    st = Trainer(r8, corpus, "en", "fr", b, quiet=True, warm_start=str(shipped)).run()
    assert st["step"] == 8 and st["stopped"] == "max_steps" and st["warm_starts"] == [4]
    assert [h["step"] for h in st["history"]] == [4, 8]
    assert "warm start from" in open(os.path.join(b, "train.log")).read()
    # a checkpoint in OUT wins over the warm start: the run is already finished
    assert Trainer(r8, corpus, "en", "fr", b, quiet=True, warm_start=str(shipped)).run()["warm_starts"] == [4]


def test_warm_start_from_another_model_is_a_clear_error(corpus, tmp_path):
    a = str(tmp_path / "a")
    Trainer(load_recipe(write_recipe(tmp_path / "r.yaml", max_steps=4)), corpus, "en", "fr", a, quiet=True).run()
    other = load_recipe(write_recipe(tmp_path / "o.yaml", max_steps=4), ["model.emb_size=12"])
    t = Trainer(other, corpus, "en", "fr", str(tmp_path / "b"), quiet=True, warm_start=os.path.join(a, "model"))
    with pytest.raises(RecipeError, match="emb_size"):
        t.run()


def test_train_max_src_words_filters_training_pairs_only(corpus, tmp_path):
    r = load_recipe(write_recipe(tmp_path / "r.yaml", max_steps=1), ["data.train_max_src_words=6"])
    t = Trainer(r, corpus, "en", "fr", str(tmp_path / "o"), quiet=True)
    src = open(os.path.join(corpus, "train.en"), encoding="utf-8").read().splitlines()
    assert len(t.train_pairs) == sum(len(x.split()) <= 6 for x in src) < len(src)
    assert len(t.dev_pairs) == 8


def test_exact_resume_after_sigkill(corpus, tmp_path):
    steps = 60
    rpath = write_recipe(tmp_path / "r.yaml", max_steps=steps, checkpoint_every=1, eval_every=25)
    ref = str(tmp_path / "ref")
    Trainer(load_recipe(rpath), corpus, "en", "fr", ref, quiet=True).run()
    out = str(tmp_path / "killed")
    cmd = [sys.executable, os.path.join(MODELS, "train.py"), "--recipe", rpath, "--corpus", corpus,
           "--src", "en", "--tgt", "fr", "--out", out]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ckpt = os.path.join(out, "checkpoint.pt")
    t0 = time.time()
    while not os.path.exists(ckpt) and p.poll() is None and time.time() - t0 < 60:
        time.sleep(0.01)
    time.sleep(0.2)
    p.send_signal(signal.SIGKILL)
    p.wait()
    if p.returncode != -signal.SIGKILL:
        pytest.skip("the run ended before it could be killed")
    step = torch.load(ckpt)["state"]["step"]
    assert 0 < step < steps
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "resumed from" in open(os.path.join(out, "train.log")).read()
    assert not [f for f in os.listdir(out) if f.endswith(".ckpt.tmp")]
    assert_same_weights(weights(ref), weights(out))


def test_one_step_smoke_through_the_clis(corpus, tmp_path):
    toks = str(tmp_path / "toks")
    r = subprocess.run([sys.executable, os.path.join(MODELS, "make_tokenizers.py"), "--corpus", corpus,
                        "--src", "en", "--tgt", "fr", "--out", toks, "--src-vocab", "40", "--tgt-vocab", "45"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = str(tmp_path / "run")
    r = subprocess.run([sys.executable, os.path.join(MODELS, "train.py"), "--recipe",
                        write_recipe(tmp_path / "r.yaml"), "--corpus", corpus, "--src", "en", "--tgt", "fr",
                        "--out", out, "--max-steps", "1", "--tokenizers", toks],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    md = os.path.join(out, "model")
    assert sorted(os.listdir(md)) == ["model.safetensors", "src.spm.model", "tgt.spm.model", "training_state.json"]
    for name in ("src.spm.model", "tgt.spm.model"):
        assert open(os.path.join(md, name), "rb").read() == open(os.path.join(toks, name), "rb").read()
    model, cfg = export.load(os.path.join(md, "model.safetensors"))
    assert (cfg.variant, cfg.src_vocab, cfg.tgt_vocab, cfg.pad_id, cfg.eos_id) == ("bahdanau", 40, 45, 0, 3)
    assert cfg.src_lang == "en" and cfg.tgt_lang == "fr"
    log = open(os.path.join(out, "train.log")).read()
    assert "eval step 1" in log and "stopped: max_steps" in log
    e = subprocess.run([sys.executable, os.path.join(MODELS, "evaluate.py"), md, "--src",
                        os.path.join(corpus, "dev.en"), "--ref", os.path.join(corpus, "dev.fr"), "--beam", "2"],
                       capture_output=True, text=True, timeout=120)
    assert e.returncode == 0, e.stderr
    assert "BLEU =" in e.stdout and "chrF2 =" in e.stdout and "0-10" in e.stdout


def test_a_version_2_recipe_trains_resumes_exactly_and_exports_version_2(corpus, tmp_path):
    """Format version 2's model keys and decoding.beam_rules are recipe keys; a recipe
    without them merges to what it merged to before (no new keys: resumes compare recipes)."""
    assert "cell" not in load_recipe(write_recipe(tmp_path / "v1.yaml"))["model"]
    path = tmp_path / "v2.yaml"
    r = yaml.safe_load(open(write_recipe(path, max_steps=8)))
    r["model"] = {"variant": "luong", "score": "concat", "scope": "global", "input_feeding": True, "emb_size": 8,
                  "enc_hidden": 4, "dec_hidden": 8, "att_hidden": 6, "maxout_size": 0, "enc_layers": 2,
                  "dec_layers": 2, "max_src_len": 40, "dropout": 0.2, "cell": "lstm", "source_eos": False,
                  "decoder_init": "relu-final", "query_bias": True, "combine_bias": True, "combine_tanh": False}
    r["decoding"]["beam_rules"] = "opennmt"
    path.write_text(yaml.safe_dump(r))
    recipe = load_recipe(str(path), ["model.enc_directions=2"])
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    Trainer(recipe, corpus, "en", "fr", a, quiet=True).run()
    Trainer(recipe, corpus, "en", "fr", b, quiet=True).run(stop_after_steps=5)
    st = Trainer(recipe, corpus, "en", "fr", b, quiet=True).run()
    assert st["step"] == 8
    assert_same_weights(weights(a), weights(b))
    meta = export.read_metadata(os.path.join(a, "model", "model.safetensors"))
    assert meta["format_version"] == 2 and meta["cell"] == "lstm" and meta["decoder_init"] == "relu-final"
    assert meta["decoding"]["beam_rules"] == "opennmt"
    model, cfg = export.load(os.path.join(a, "model", "model.safetensors"))
    assert "bridge_c.weight" in model.state_dict() and cfg.source_eos is False


def test_missing_corpus_is_a_clear_error(tmp_path):
    r = subprocess.run([sys.executable, os.path.join(MODELS, "train.py"), "--recipe",
                        write_recipe(tmp_path / "r.yaml"), "--corpus", str(tmp_path / "none"), "--src", "en",
                        "--tgt", "fr", "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "corpus file not found" in r.stderr


@pytest.mark.parametrize("variant", ["encdec", "bahdanau", "luong-feed", "luong-nofeed", "bahdanau-2x2"])
def test_batch_loss_equals_the_full_forward_loss(variant):
    from softalign_ref.config import ModelConfig
    from softalign_ref.model import build_model
    from softalign_ref.train import batch_loss, seq_loss
    from softalign_ref import data as D
    kw = dict(emb_size=8, enc_hidden=6, dec_hidden=12, src_vocab=30, tgt_vocab=25, max_src_len=20)
    kw.update({"encdec": dict(variant="encdec", att_hidden=0, maxout_size=5),
               "bahdanau": dict(variant="bahdanau", att_hidden=7, maxout_size=5),
               "bahdanau-2x2": dict(variant="bahdanau", att_hidden=7, maxout_size=5, enc_layers=2, dec_layers=2),
               "luong-feed": dict(variant="luong", score="general", maxout_size=0, att_hidden=0, input_feeding=True),
               "luong-nofeed": dict(variant="luong", score="concat", maxout_size=0, att_hidden=5)}[variant])
    torch.manual_seed(0)
    model = build_model(ModelConfig(**kw)).eval()
    g = torch.Generator().manual_seed(1)
    pairs = [(torch.randint(4, 30, (n,), generator=g).tolist() + [3], torch.randint(4, 25, (k,), generator=g).tolist())
             for n, k in ((5, 7), (2, 1), (9, 4), (1, 9))]
    b = D.collate(pairs, [0, 1, 2, 3])
    with torch.no_grad():
        logits, _ = model(b.src, b.src_len, b.tgt_in)
        for ls in (0.0, 0.1):
            assert float(batch_loss(model, b, ls)) == pytest.approx(float(seq_loss(logits, b.tgt_out, ls)), rel=1e-5)


@pytest.mark.parametrize("layers", [1, 3])
def test_unpacked_training_encoder_equals_the_packed_one(layers):
    from softalign_ref.config import ModelConfig
    from softalign_ref.model import build_model
    cfg = ModelConfig(variant="bahdanau", emb_size=8, enc_hidden=6, dec_hidden=12, att_hidden=7, maxout_size=5,
                      src_vocab=30, tgt_vocab=25, max_src_len=20, enc_layers=layers)
    torch.manual_seed(0)
    enc = build_model(cfg).encoder.eval()
    lens = torch.tensor([5, 1, 9, 3])
    emb = torch.randn(4, 9, 8)
    with torch.no_grad():
        packed, (finals_p, _) = enc(emb, lens)  # eval mode: the packed path
        unpacked, (finals_u, _) = enc.forward_unpacked(emb, lens)
        assert torch.allclose(packed, unpacked, atol=1e-6, rtol=0)
        assert torch.allclose(finals_p, finals_u, atol=1e-6, rtol=0)  # every layer's final states
        # padding changes nothing: each sentence alone
        for b, n in enumerate(lens.tolist()):
            alone, _ = enc.forward_unpacked(emb[b:b + 1, :n], lens[b:b + 1])
            assert torch.allclose(alone[0], unpacked[b, :n], atol=1e-6, rtol=0)
        assert unpacked[1, 1:].abs().max() == 0  # zeros at padding


def test_snapshots_keep_the_last_evaluations_and_average(corpus, tmp_path):
    out = str(tmp_path / "run")
    rec = load_recipe(write_recipe(tmp_path / "r.yaml", keep_snapshots=2))
    Trainer(rec, corpus, "en", "fr", out, quiet=True).run(stop_after_steps=12)   # evaluations at 4, 8, 12
    snaps = os.path.join(out, "snapshots")
    assert sorted(os.listdir(snaps)) == ["step-12", "step-8"]
    for step in (8, 12):
        state = json.load(open(os.path.join(snaps, f"step-{step}", "training_state.json")))
        assert state["step"] == step
    avg = str(tmp_path / "avg")
    r = subprocess.run([sys.executable, os.path.join(MODELS, "export.py"), "average", avg, "--like",
                        os.path.join(out, "model"), os.path.join(snaps, "step-8"), os.path.join(snaps, "step-12")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    a = export.load(os.path.join(snaps, "step-8", "model.safetensors"))[0].state_dict()
    b = export.load(os.path.join(snaps, "step-12", "model.safetensors"))[0].state_dict()
    m = export.load(os.path.join(avg, "model.safetensors"))[0].state_dict()
    for k in m:
        assert torch.allclose(m[k], (a[k].double() + b[k].double()).div(2).float())
    assert not any(a[k].equal(b[k]) for k in a if a[k].dim() == 2)  # the two snapshots differ
    assert json.load(open(os.path.join(avg, "training_state.json")))["step"] == 12


def test_repeat_first_counts_the_first_pairs_k_times(corpus, tmp_path):
    base = Trainer(load_recipe(write_recipe(tmp_path / "a.yaml")), corpus, "en", "fr", str(tmp_path / "a"),
                   quiet=True)
    rec = load_recipe(write_recipe(tmp_path / "b.yaml"), ["data.repeat_first=[5, 3]"])
    t = Trainer(rec, corpus, "en", "fr", str(tmp_path / "b"), quiet=True)
    assert len(t.train_pairs) == len(base.train_pairs) + 2 * 5
    assert t.train_pairs[:15] == base.train_pairs[:5] * 3 and t.train_pairs[15:] == base.train_pairs[5:]
    t.run(stop_after_steps=2)
    for bad in ("[5]", "[0, 2]", "[5, true]", "5"):
        with pytest.raises(RecipeError, match="repeat_first"):
            load_recipe(write_recipe(tmp_path / "c.yaml"), [f"data.repeat_first={bad}"])
    rec = load_recipe(write_recipe(tmp_path / "d.yaml"), ["data.repeat_first=[4800, 2]"])
    with pytest.raises(RecipeError, match="4800 lines asked for"):
        Trainer(rec, corpus, "en", "fr", str(tmp_path / "d"), quiet=True)


def test_repeat_first_with_the_length_filter(corpus, tmp_path):
    f = ["data.train_max_src_words=6"]
    base = Trainer(load_recipe(write_recipe(tmp_path / "a.yaml"), f), corpus, "en", "fr", str(tmp_path / "a"),
                   quiet=True)
    t = Trainer(load_recipe(write_recipe(tmp_path / "b.yaml"), f + ["data.repeat_first=[10, 2]"]), corpus, "en",
                "fr", str(tmp_path / "b"), quiet=True)
    src = open(os.path.join(corpus, "train.en"), encoding="utf-8").read().splitlines()
    first = sum(1 for s in src[:10] if len(s.split()) <= 6)
    assert 0 < first < 10
    assert t.train_pairs == base.train_pairs[:first] * 2 + base.train_pairs[first:]


def test_evaluation_with_repetition_blocking(corpus, tmp_path):
    # A recipe whose decoding blocks repeats (decoding.block_repeats) evaluates: the dev
    # BLEU search gets the target's word starts (it failed at the first evaluation before).
    path = tmp_path / "r.yaml"
    write_recipe(path)
    r = yaml.safe_load(open(path))
    r["decoding"]["block_repeats"] = 8
    yaml.safe_dump(r, open(path, "w"))
    st = Trainer(load_recipe(str(path)), corpus, "en", "fr", str(tmp_path / "run"), quiet=True).run(stop_after_steps=4)
    assert st["step"] == 4 and st["best_dev_bleu"] >= 0.0


def test_the_luong_2015_recipe_trains_and_exports_its_model_kind(corpus, tmp_path):
    """models/recipes/luong-2015.yaml (LSTM, one-way encoder over the reversed source,
    decoder_init final, input feeding, local-p general) at a tiny size: a few steps, then the
    export carries every key of that kind, and the reference translator runs it."""
    path = os.path.join(MODELS, "recipes", "luong-2015.yaml")
    recipe = load_recipe(path, ["model.emb_size=8", "model.enc_hidden=8", "model.dec_hidden=8",
                                "model.att_hidden=8", "tokenizer.src_vocab=40", "tokenizer.tgt_vocab=45",
                                "training.threads=1", "training.eval_every=6", "training.dev_bleu_sentences=4",
                                "training.log_every=0", "training.max_steps=12"])
    st = Trainer(recipe, corpus, "en", "fr", str(tmp_path / "run"), quiet=True).run()
    assert st["step"] == 12 and st["stopped"] == "max_steps"
    md = str(tmp_path / "run" / "model")
    meta = export.read_metadata(os.path.join(md, "model.safetensors"))
    assert meta["format_version"] == 2
    assert {k: meta[k] for k in ("variant", "cell", "enc_directions", "reverse_source", "decoder_init", "score",
                                 "scope", "window_d", "input_feeding", "enc_layers", "dec_layers")} == {
        "variant": "luong", "cell": "lstm", "enc_directions": 1, "reverse_source": True, "decoder_init": "final",
        "score": "general", "scope": "local-p", "window_d": 10, "input_feeding": True, "enc_layers": 2,
        "dec_layers": 2}
    model, cfg = export.load(os.path.join(md, "model.safetensors"))
    w = model.state_dict()
    assert not any(k.startswith("bridge") for k in w)  # final: no bridge tensors
    assert w["encoder.rnn.weight_hh_l1"].shape == (32, 8) and "encoder.rnn.weight_hh_l0_reverse" not in w
    assert w["decoder.rnn.weight_ih_l0"].shape == (32, 16)  # LSTM gates; input feeding: [y; h~]
    r = subprocess.run([sys.executable, os.path.join(MODELS, "translate.py"), md, "--beam", "2", EN[0], FR[0]],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.split("\n")) == 3


def test_sampled_softmax_trains_resumes_exactly_and_keeps_dropouts_stream(corpus, tmp_path):
    with pytest.raises(RecipeError, match="softmax_candidates"):
        load_recipe(write_recipe(tmp_path / "bad.yaml"), ["training.softmax_candidates=-2"])
    full = load_recipe(write_recipe(tmp_path / "full.yaml", max_steps=8, eval_every=4))
    assert "softmax_candidates" not in full["training"]  # absent: recipes and checkpoints as before
    # 45 pieces, 20 candidates a batch: the batch's targets and the rest drawn
    recipe = load_recipe(write_recipe(tmp_path / "r.yaml", max_steps=8, eval_every=4),
                         ["training.softmax_candidates=20"])
    a, b, c = str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "c")
    st = Trainer(recipe, corpus, "en", "fr", a, quiet=True).run()
    assert st["step"] == 8 and all(h["dev_loss"] == h["dev_loss"] for h in st["history"])  # not NaN
    Trainer(recipe, corpus, "en", "fr", b, quiet=True).run(stop_after_steps=3)
    Trainer(recipe, corpus, "en", "fr", b, quiet=True).run()
    assert_same_weights(weights(a), weights(b))
    # At least V candidates is the full softmax: the same weights as without the key.
    Trainer(full, corpus, "en", "fr", c, quiet=True).run()
    d = str(tmp_path / "d")
    Trainer(load_recipe(write_recipe(tmp_path / "all.yaml", max_steps=8, eval_every=4),
                        ["training.softmax_candidates=100"]), corpus, "en", "fr", d, quiet=True).run()
    wc, wd = weights(c), weights(d)
    for k in wc:
        assert torch.allclose(wc[k], wd[k], rtol=1e-4, atol=1e-6), k
    # and fewer candidates train other weights
    assert not torch.allclose(weights(a)["generator.weight"], wc["generator.weight"])


def test_the_full_softmax_takes_over_at_the_first_decay(corpus, tmp_path):
    with pytest.raises(RecipeError, match="softmax_full_after_decay"):
        load_recipe(write_recipe(tmp_path / "bad.yaml"), ["training.softmax_full_after_decay=2"])
    sampled = ["training.softmax_candidates=20", "training.lr_decay_steps=[3]"]
    recipe = load_recipe(write_recipe(tmp_path / "r.yaml", max_steps=6, eval_every=0),
                         sampled + ["training.softmax_full_after_decay=true"])
    a, b, c = str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "c")
    Trainer(recipe, corpus, "en", "fr", a, quiet=True).run()
    assert "step 3: the full softmax from here" in open(os.path.join(a, "train.log")).read()
    # the same as 3 sampled steps, then the full softmax from the checkpoint on (the decay is at
    # the end of step 3): the switch is exact and comes from the state, so resume makes it too
    Trainer(load_recipe(write_recipe(tmp_path / "s.yaml", max_steps=6, eval_every=0), sampled),
            corpus, "en", "fr", b, quiet=True).run(stop_after_steps=3)
    Trainer(load_recipe(write_recipe(tmp_path / "f.yaml", max_steps=6, eval_every=0),
                        ["training.lr_decay_steps=[3]"]), corpus, "en", "fr", b, quiet=True).run()
    assert_same_weights(weights(a), weights(b))
    # and it is not the sampled softmax throughout
    Trainer(load_recipe(write_recipe(tmp_path / "s2.yaml", max_steps=6, eval_every=0), sampled),
            corpus, "en", "fr", c, quiet=True).run()
    assert not torch.equal(weights(a)["generator.weight"], weights(c)["generator.weight"])

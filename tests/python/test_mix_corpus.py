"""models/corpus/mix_corpus.py: weights repeat or sample, dev takes the first pairs of each
source, and no train pair of any source is a near-copy of any source's dev or test sentence."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "models", "corpus", "mix_corpus.py")


def write(folder, split, pairs):
    os.makedirs(folder, exist_ok=True)
    for k, lang in enumerate(("en", "de")):
        with open(os.path.join(folder, f"{split}.{lang}"), "w", encoding="utf-8") as f:
            f.write("".join(p[k] + "\n" for p in pairs))


def lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def test_weights_dev_and_held_out(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    write(a, "train", [("A cow.", "Eine Kuh."), ("Where is it?", "Wo ist es?"), ("The train station", "Der Bahnhof")])
    write(a, "dev", [("A horse.", "Ein Pferd."), ("A dog.", "Ein Hund.")])
    write(a, "test", [("A cat.", "Eine Katze.")])
    # b's train holds a's dev and test sentences (case and punctuation aside): they must go.
    write(b, "train", [("a horse", "ein Pferd"), ("A CAT!", "Eine Katze!"), ("Open file", "Datei öffnen")] +
          [(f"Line {k}", f"Zeile {k}") for k in range(400)])
    write(b, "dev", [("Save file", "Datei speichern")])
    spec = tmp_path / "spec.tsv"
    spec.write_text("# comment\na\ta\t2\t1\nb\tb\t0.5\t5\n", encoding="utf-8")
    out = tmp_path / "mix" / "en-de"
    subprocess.run([sys.executable, SCRIPT, str(spec), "--out", str(out), "--root", str(tmp_path)], check=True,
                   capture_output=True)
    train = lines(out / "train.en")
    assert train[:6] == ["A cow.", "Where is it?", "The train station"] * 2
    rest = train[6:]
    assert "a horse" not in rest and "A CAT!" not in rest
    assert 120 < len(rest) < 280  # about half of b's 401 remaining pairs, sampled by hash
    assert lines(out / "dev.en") == ["A horse.", "Save file"]
    assert len(lines(out / "train.de")) == len(train)
    # The same spec gives the same bytes.
    out2 = tmp_path / "mix2" / "en-de"
    subprocess.run([sys.executable, SCRIPT, str(spec), "--out", str(out2), "--root", str(tmp_path)], check=True,
                   capture_output=True)
    assert (out / "train.en").read_bytes() == (out2 / "train.en").read_bytes()


def test_build_mixes_makes_every_folder_the_mixes_read():
    """models/corpus/build_mixes.sh is what a new machine runs before the everyday runs can
    resume: every runs/ folder a committed mix spec reads must be one it builds, every
    hash file it checks against must exist, and it must parse."""
    corpus = os.path.join(ROOT, "models", "corpus")
    script = open(os.path.join(corpus, "build_mixes.sh"), encoding="utf-8").read()
    built = set()
    for word in script.replace("\\\n", " ").split():
        if word.startswith("runs/") and word.endswith("-corpus"):
            built.add(word)
        if word.startswith("$corpus/") and word.endswith(".sha256"):
            assert os.path.exists(os.path.join(corpus, word[len("$corpus/"):])), word
    for name in ("mix-en-fr.tsv", "mix-en-de.tsv"):
        for line in lines(os.path.join(corpus, name)):
            if not line or line.startswith("#"):
                continue
            folder = line.split("\t")[1]
            if folder.startswith("runs/"):
                top = "/".join(folder.split("/")[:2])
                assert top in built, f"{name} reads {folder}, which build_mixes.sh does not build"
    subprocess.run(["bash", "-n", os.path.join(corpus, "build_mixes.sh")], check=True)
    # One line per pair's tokenizer: SHA-256, two spaces, the path under TOKENIZER_DIR.
    rows = [r for r in lines(os.path.join(corpus, "tokenizers.sha256")) if not r.startswith("#")]
    assert sorted(r.split("  ")[1] for r in rows) == ["tok-en-de/16000/spm.model", "tok-en-fr/16000/spm.model"]
    assert all(len(r.split("  ")[0]) == 64 for r in rows)

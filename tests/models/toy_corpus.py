"""A toy en-fr corpus for the pipeline smoke tests: this folder's en-fr sentences and their
expected outputs (tests/models/en-fr.int8.expected.tsv) as every split asked for."""
import argparse
import os
import sys


def write_toy_corpus(root, folder, splits=("train", "dev", "test")):
    """Writes SPLIT.en / SPLIT.fr for each split into folder (created); returns the number of pairs."""
    with open(os.path.join(root, "tests", "models", "en-fr.int8.expected.tsv"), encoding="utf-8") as f:
        pairs = [line.rstrip("\n").split("\t")[:2] for line in f if line.strip() and not line.startswith("#")]
    os.makedirs(folder, exist_ok=True)
    for split in splits:
        for k, lang in ((0, "en"), (1, "fr")):
            with open(os.path.join(folder, f"{split}.{lang}"), "w", encoding="utf-8") as f:
                f.write("".join(p[k] + "\n" for p in pairs))
    return len(pairs)


def smoke_args():
    """The smoke tests' command line: --build-dir BUILD --root REPO."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--root", required=True)
    return ap.parse_args()


def fail(test, msg):
    """Ends a smoke test: 'TEST: MSG' on stderr, exit 1."""
    print(f"{test}: {msg}", file=sys.stderr)
    sys.exit(1)

"""The command line that every corpus recipe shares.

Each recipe (gettext, dialogue, docs, Ding, Bible, WordNet examples, the Apertium pivot) takes
a command (`select`, `download`, `build`, `check`, `licences` or `all`) and the same folder and
comparison options. This module holds those options, the order in which the commands run,
and the SHA-256 checks that make a rebuild provably byte-identical, so that a recipe says
only what is its own.
"""
import argparse
import difflib
import hashlib
import os
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def runs_path(name):
    """A folder under the repository's runs/ (gitignored): where downloads and corpora go."""
    return os.path.join(ROOT, "runs", name)


def parser(doc, commands, *, manifest, cache, out, reference_help, sha256_help=None):
    """The options every recipe has; `cache` and `out` name folders under runs/. A recipe adds
    its own options (the corpora it keeps its held-out sentences away from) to what it returns."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=commands)
    p.add_argument("--manifest", default=manifest)
    p.add_argument("--cache", default=runs_path(cache),
                   help=f"folder for the downloaded packages (default runs/{cache}, gitignored)")
    p.add_argument("--out", default=runs_path(out))
    p.add_argument("--reference", help=reference_help)
    if sha256_help:
        p.add_argument("--sha256", help=sha256_help)
    return p


def run(a, script, *, download, build, check=None, select=None, licences=None, compare=None,
        sha256_table=None):
    """Runs `a.command`. `select` and `licences` run alone; otherwise download, then build
    (and its SHA256SUMS, where the recipe has a `sha256_table`), then check, then the
    comparisons that `--reference` and `--sha256` ask for. Returns the exit status: 1 when a
    check or a comparison failed."""
    t0 = time.time()
    alone = {"select": select, "licences": licences}
    if a.command in alone:
        alone[a.command](a)
        return 0
    if a.command in ("download", "all"):
        download(a)
    if a.command in ("build", "all"):
        build(a)
        if sha256_table:
            with open(os.path.join(a.out, "SHA256SUMS"), "w", encoding="utf-8") as f:
                f.write(sha256_table(a.out))
    status = 0
    if check and a.command in ("check", "all"):
        status |= check(a)
    if a.reference:
        status |= compare(a.out, a.reference)
    if getattr(a, "sha256", None):
        status |= compare_sha256(a.out, a.sha256, sha256_table)
    print(f"{script} {a.command}: {time.time() - t0:.0f} s, status {status}")
    return status


def write_summary(out, lines):
    """Writes a build's summary lines to OUT/SUMMARY.txt and prints them."""
    with open(os.path.join(out, "SUMMARY.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def sha256_lines(out, files):
    """'SHA-256  path' lines of `files` (paths relative to `out`), in the order given."""
    return "".join(f"{sha256_file(os.path.join(out, rel))}  {rel}\n" for rel in files)


def compare_sha256(out, path, table):
    """Compare the built files' SHA-256 (`table(out)`: 'SHA-256  path' lines) with a committed
    file of such lines: prints "identical" or the difference; 0 when equal, else 1."""
    with open(path, encoding="utf-8") as f:
        want = f.read()
    got = table(out)
    same = want == got
    print("sha256: " + ("identical to " if same else "DIFFERS from ") + os.path.basename(path))
    if not same:
        for line in difflib.unified_diff(want.splitlines(), got.splitlines(), "expected", "built", lineterm="", n=0):
            print(line)
    return 0 if same else 1


def compare_files(out, ref, files):
    """Compare each of `files` (relative paths) under `out` with the same file under `ref`,
    byte for byte: prints one line a file; 0 when all are identical, else 1."""
    status = 0
    for rel in files:
        a, b = os.path.join(out, rel), os.path.join(ref, rel)
        same = os.path.isfile(a) and os.path.isfile(b) and open(a, "rb").read() == open(b, "rb").read()
        print(("identical: " if same else "DIFFERS:   ") + rel)
        status |= 0 if same else 1
    return status

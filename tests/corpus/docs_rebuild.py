#!/usr/bin/env python3
"""Rebuilds the documentation corpus from the cached .deb files into a temporary folder,
compares every output file with models/corpus/docs-corpus.sha256 (byte-identical
rebuild) and runs the leak check. Exit 0: identical and no leak; 1: a difference or a
leak; 77 (ctest: skipped): the .deb cache, the gettext corpus or the DDTP corpus is
missing here. Paths: SOFTALIGN_DOCS_DEBS, SOFTALIGN_GETTEXT_CORPUS, SOFTALIGN_DDTP
(defaults runs/docs-debs, runs/gettext-corpus, ../shared/data/ddtp from the repository)."""
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models", "corpus"))
import docs_corpus as D  # noqa: E402


def main():
    cache = os.environ.get("SOFTALIGN_DOCS_DEBS", os.path.join(ROOT, "runs", "docs-debs"))
    gettext = os.environ.get("SOFTALIGN_GETTEXT_CORPUS", os.path.join(ROOT, "runs", "gettext-corpus"))
    ddtp = os.environ.get("SOFTALIGN_DDTP", os.path.join(os.path.dirname(ROOT), "shared", "data", "ddtp"))
    rows = D.G.read_manifest(D.MANIFEST)
    missing = [D.G.deb_name(r) for r in rows if not os.path.isfile(os.path.join(cache, D.G.deb_name(r)))]
    if missing:
        print(f"SKIPPED: {cache} lacks {len(missing)} of the manifest's {len(rows)} .deb files "
              f"(python3 models/corpus/docs_corpus.py download, needs the Debian archive)")
        return 77
    for what, d in (("the gettext corpus", os.path.join(gettext, "combined")), ("the DDTP corpus", ddtp)):
        if not os.path.isdir(d):
            print(f"SKIPPED: {what} is not at {d} (models/corpus/README.md says how to build it)")
            return 77
    bad = [D.G.deb_name(r) for r in rows if D.R.sha256_file(os.path.join(cache, D.G.deb_name(r))) != r["sha256"]]
    if bad:
        print(f"FAIL: {len(bad)} cached .deb files differ from the manifest's SHA-256: {bad[:5]}")
        return 1
    t0 = time.time()
    with tempfile.TemporaryDirectory() as out:
        args = ["--cache", cache, "--out", out, "--ddtp", ddtp, "--gettext", gettext]
        status = D.main(["build"] + args + ["--sha256", os.path.join(D.HERE, "docs-corpus.sha256")])
        status |= D.main(["check"] + args)
    print(f"docs_rebuild: {'PASS' if status == 0 else 'FAIL'} ({time.time() - t0:.0f} s)")
    return status


if __name__ == "__main__":
    sys.exit(main())

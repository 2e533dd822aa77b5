#!/usr/bin/env python3
"""Parity of softalign-import with the toolkits' own outputs.

    check_import.py [--only greedy|beam5] FIXTURE_DIR ...   (default: the five fixtures)

Each fixture (tests/import/fixtures/README.md) is imported into a temporary folder
(importers/softalign_import), loaded by softalign_ref (models/) and searched with the
stored decoding options (beam_rules, alpha, length cap): greedy (beam 1) and beam 5 on
data/test200.en.pieces, the pieces read as SentencePiece ids of data/spm.en.model. The
output ids are written back as the toolkit's tokens (SentencePiece pieces; appended rows
as their toolkit tokens) and compared with greedy.pieces / beam5.pieces. JoeyNMT prints
an empty result as `<unk>` (tokenizers.py post_process); the comparison does the same.

Prints, per fixture and search, the identical lines out of 200; exits 1 if any is
below --target (default 0.98).
"""
import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(HERE, "fixtures")
ALL = ["onmt-gru-brnn-general", "onmt-lstm-rnn-general", "onmt-gru-brnn-mlp-bridge",
       "joey-gru-bahdanau", "joey-gru-luong"]
for p in (os.path.join(ROOT, "models"), os.path.join(ROOT, "importers")):
    if p not in sys.path:
        sys.path.insert(0, p)


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def import_fixture(fx, out_dir):
    from softalign_import import import_checkpoint
    data = os.path.join(os.path.dirname(os.path.abspath(fx)), "data")
    src_spm, tgt_spm = os.path.join(data, "spm.en.model"), os.path.join(data, "spm.fr.model")
    if os.path.isfile(os.path.join(fx, "model.pt")):
        return import_checkpoint("opennmt-py", os.path.join(fx, "model.pt"), out_dir, src_spm, tgt_spm)
    return import_checkpoint("joeynmt", os.path.join(fx, "model.ckpt"), out_dir, src_spm, tgt_spm,
                             config=os.path.join(fx, "config.yaml"))


def check_fixture(fx, searches=("greedy", "beam5"), limit=None, log=print):
    """→ {search: (identical lines, lines)} for one fixture folder."""
    import json

    import sentencepiece as spm
    import torch
    from softalign_ref.export import load, read_metadata
    from softalign_ref.search import translate_ids

    data = os.path.join(os.path.dirname(os.path.abspath(fx)), "data")
    name = os.path.basename(os.path.normpath(fx))
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = import_fixture(fx, os.path.join(tmp, "export"))
        weights = os.path.join(folder, "model.safetensors")
        model, cfg = load(weights)
        extra_rows = json.loads(json.dumps(read_metadata(weights).get("imported_rows", {})))
        sp_src = spm.SentencePieceProcessor(model_file=os.path.join(folder, "src.spm.model"))
        sp_tgt = spm.SentencePieceProcessor(model_file=os.path.join(folder, "tgt.spm.model"))
        tgt_rows = {int(i): t for i, t in extra_rows.get("tgt", {}).items()}
        joey = cfg.beam_rules() == "joeynmt"
        lines = read_lines(os.path.join(data, "test200.en.pieces"))[:limit]
        src = [[sp_src.piece_to_id(p) for p in line.split()] + [cfg.eos_id] for line in lines]

        def token(i):
            return tgt_rows[i] if i in tgt_rows else sp_tgt.id_to_piece(i)

        for kind in searches:
            ref = [line.split() for line in read_lines(os.path.join(fx, kind + ".pieces"))][:len(src)]
            beam = 1 if kind == "greedy" else 5
            with torch.no_grad():
                res = translate_ids(model, src, beam=beam, nbest=1)
            hyp = [[token(i) for i in r[0].ids] for r in res]
            if joey:
                hyp = [h or ["<unk>"] for h in hyp]
            same = sum(h == r for h, r in zip(hyp, ref))
            out[kind] = (same, len(ref))
            log(f"{name} {kind}: {same}/{len(ref)} lines identical to the toolkit's own output "
                f"(beam_rules {cfg.beam_rules()}, beam {beam})")
            for i, (h, r) in enumerate(zip(hyp, ref)):
                if h != r:
                    log(f"  first difference, line {i + 1}:\n    toolkit: {' '.join(r)[:150]}\n"
                        f"    here:    {' '.join(h)[:150]}")
                    break
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("fixtures", nargs="*", help="fixture folders (default: the five of tests/import/fixtures)")
    ap.add_argument("--only", choices=["greedy", "beam5"], help="one search only")
    ap.add_argument("--target", type=float, default=0.98, help="the least share of identical lines (default 0.98)")
    ap.add_argument("--limit", type=int, help="the first N lines only")
    args = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    fixtures = args.fixtures or [os.path.join(FIXTURES, n) for n in ALL]
    searches = (args.only,) if args.only else ("greedy", "beam5")
    ok = True
    for fx in fixtures:
        for kind, (same, n) in check_fixture(fx, searches, args.limit).items():
            ok &= same >= args.target * n
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

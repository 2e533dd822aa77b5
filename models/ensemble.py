#!/usr/bin/env python3
"""Ensembles of independently trained members (Luong et al. 2015, §4): test BLEU of 1, 2 and 4.

  .venv/bin/python models/ensemble.py --seeds 1,2,3,4 --corpus ../shared/data/ddtp/en-fr --src en --tgt fr

Trains (or resumes, or reuses) one model per seed with the settings of models/reproduce.py (its
--size, --steps, training subset and tokenizers; recipe --recipe, default bahdanau), each in
OUT/seed-N, then translates the test set (--split dev: the dev set) with softalign (--precision f32
or int8, the CLI's -m A -m B ...: the mean of the members' log-probabilities) for the first 1, 2
and 4 seeds, greedy and beam 4, and prints the BLEU / chrF table (markdown). --train-only SEEDS trains those seeds and stops (one process per
seed uses several cores). Settings of reproduce.py that do not apply here (--speed-*, --no-write) are
ignored.

--members A,B,... takes trained model folders instead (model.safetensors + tokenizers; the members
must share the target vocabulary), e.g. the DDTP-only en-fr model shipped until 9b5ea56 and runs of
its recipe with other seeds (`train.py --set training.seed=N`), converted at --precision (f32 or
int8, no shortlist), translated with --search's settings:

  mkdir -p runs/ddtp-en-fr && for f in model.safetensors src.spm.model tgt.spm.model; do
    git show 9b5ea56:models/en-fr/$f > runs/ddtp-en-fr/$f; done
  .venv/bin/python models/ensemble.py --members runs/ddtp-en-fr,runs/member-2/final,... \
      --precision int8 --beams 1,5 --search alpha=0.6,beta=0.2
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import reproduce as R  # noqa: E402
from softalign_ref import evaluate as E  # noqa: E402


def main():
    ap = R.build_parser(what=False)
    ap.description = __doc__
    ap.set_defaults(out=os.path.join(R.ROOT, "runs", "ensemble"))
    ap.add_argument("--seeds", default="1,2,3,4", help="comma-separated training seeds, one member each")
    ap.add_argument("--train-only", metavar="SEEDS", help="comma-separated seeds: only train these members")
    ap.add_argument("--recipe", default="bahdanau")
    ap.add_argument("--beams", default="1,4")
    ap.add_argument("--members", help="comma-separated model folders to ensemble instead of training members")
    ap.add_argument("--precision", choices=["f32", "int8"], default="f32")
    ap.add_argument("--search", default="", help="KEY=VALUE,... of the CLI's search options (alpha, beta)")
    ap.add_argument("--split", default="test", choices=["test", "dev"], help="the corpus split translated")
    a = ap.parse_args()
    R.BUILD_DIR[0] = a.build_dir
    extra = [x for kv in filter(None, a.search.split(",")) for x in ("--" + kv.split("=")[0], kv.split("=")[1])]
    if a.members:
        folders = a.members.split(",")
        names = [os.path.relpath(f, R.ROOT) if os.path.abspath(f).startswith(R.ROOT + os.sep) else f for f in folders]
        members = [R.convert(os.path.join(a.out, f"member-{i + 1}"), a.precision, os.path.join(f, "model.safetensors"))
                   for i, f in enumerate(folders)]
        what = f"members {', '.join(names)}; softalign {a.precision}"
    else:
        seeds = [int(s) for s in (a.train_only or a.seeds).split(",")]
        names = [f"seed {s}" for s in seeds]
        root = a.out
        members = []
        for seed in seeds:
            a.seed, a.out = seed, os.path.join(root, f"seed-{seed}")
            out, _ = R.train(a.recipe, a)
            members.append(out)
        if a.train_only:
            return
        members = [R.convert(out, a.precision) for out in members]
        what = (f"{a.recipe} members of size {a.size}, {a.steps} steps each (models/reproduce.py's settings), "
                f"seeds {a.seeds}; softalign {a.precision}")
    srcs = E.read_lines(os.path.join(a.corpus, f"{a.split}.{a.src}"))
    refs = E.read_lines(os.path.join(a.corpus, f"{a.split}.{a.tgt}"))
    beams = [int(b) for b in a.beams.split(",")]
    rows = []
    for k in sorted({1, 2, 4, len(members)}):
        if k > len(members):
            continue
        groups = [members[i:i + 1] for i in range(len(members))] if k == 1 else [members[:k]]
        for g in groups:
            cells = []
            for beam in beams:
                hyps, failed, lines_s, _ = R.softalign(g, srcs, extra=extra, beam=beam)
                score = E.score(hyps, refs)
                cells.append(f"{score['bleu']:.2f} / {score['chrf']:.2f}" + (f" ({failed} failed)" if failed else ""))
            label = f"{k} ({' + '.join(names[members.index(m)] for m in g)})"
            rows.append(f"| {label} | " + " | ".join(cells) + " |")
            print(rows[-1], flush=True)
    print(f"\n{a.src}→{a.tgt} {a.split} set ({len(srcs)} sentences), {what}"
          + (f", search {a.search}" if a.search else "") + "; BLEU / chrF.\n")
    print("| members | " + " | ".join("greedy" if b == 1 else f"beam {b}" for b in beams) + " |")
    print("|---|" + "---:|" * len(beams))
    print("\n".join(rows))


if __name__ == "__main__":
    main()

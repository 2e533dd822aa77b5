#!/usr/bin/env python3
"""The runtime's parity with the toolkits on the five import fixtures.

    check_runtime.py --bin-dir BUILD/bin [--device vulkan] [--precision fp32] [FIXTURE_DIR ...]
                                                  (default: the five fixtures, both precisions)

Each fixture (tests/import/fixtures/README.md) goes through the command users run,
`softalign-import TOOLKIT CHECKPOINT --src-spm ... --tgt-spm ... -o M.softalign` (fp32),
and again with `--int8`, and with `--pretokenized` in place of the SentencePiece models;
the C++ runtime (the `softalign` Python module) then
translates data/test200.en with the model's own defaults (its toolkit's beam rules,
length cap and alpha), greedy and beam 5, copy-through and placeholder repair off.
- fp32: the output pieces must equal the toolkit's own (greedy.pieces, beam5.pieces)
  on at least --target (0.98) of the 200 lines;
- --pretokenized (fp32): data/test200.en.pieces in as text (the toolkits' own input),
  the output text must equal their output lines on --target of them;
- int8: the corpus BLEU against data/test200.fr (sacrebleu) must be within 1 of the
  toolkit's own output's (greedy.txt, beam5.txt).
--device runs the translators on that device (`vulkan`: the Vulkan engine, on
whatever Vulkan device there is, lavapipe included; a translator that falls back
to the CPU fails the check); --precision limits the run to one precision.
Prints one line per fixture, precision and search; exits 1 if any check fails.
JoeyNMT prints an empty result as `<unk>`; the comparison does the same.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
ALL = ["onmt-gru-brnn-general", "onmt-lstm-rnn-general", "onmt-gru-brnn-mlp-bridge",
       "joey-gru-bahdanau", "joey-gru-luong"]


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def import_model(bin_dir, fx, out, precision):
    """precision: fp32, int8, or tokens (fp32 with --pretokenized: the toolkit's own tokens in and out)."""
    data = os.path.join(FIXTURES, "data")
    if os.path.isfile(os.path.join(fx, "model.pt")):
        args = ["opennmt-py", os.path.join(fx, "model.pt")]
    else:
        args = ["joeynmt", os.path.join(fx, "model.ckpt"), "--config", os.path.join(fx, "config.yaml")]
    if precision == "tokens":
        args += ["--pretokenized"]
    else:
        args += ["--src-spm", os.path.join(data, "spm.en.model"), "--tgt-spm", os.path.join(data, "spm.fr.model")]
    args += ["-o", out] + (["--int8"] if precision == "int8" else [])
    r = subprocess.run([os.path.join(bin_dir, "softalign-import"), *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"softalign-import failed on {fx}:\n{r.stderr}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("fixtures", nargs="*", help="fixture folders (default: the five of tests/import/fixtures)")
    ap.add_argument("--bin-dir", required=True, help="the build's bin/ (softalign-import, softalign-convert)")
    ap.add_argument("--target", type=float, default=0.98, help="fp32: the least share of identical lines")
    ap.add_argument("--keep-dir", help="keep the imported model files here (NAME.fp32.softalign, NAME.int8.softalign: "
                                       "the web and ARM stages run them)")
    ap.add_argument("--device", choices=["cpu", "auto", "vulkan"], help="the translators' device (default: the library's)")
    ap.add_argument("--precision", default="fp32,int8,tokens",
                    help="the imports to check, comma-separated (default: all three, fp32,int8,tokens; tokens: fp32 "
                         "imported with --pretokenized, which reads data/test200.en.pieces as the toolkits did and "
                         "writes their tokens)")
    ap.add_argument("--batch", type=int, default=1,
                    help="sentences decoded together (default 1: one call a line; more: the lines as one list, "
                         "which the library decodes in runs of up to this many)")
    args = ap.parse_args()
    if args.batch < 1:
        ap.error(f"--batch must be at least 1, got {args.batch}")
    precisions = args.precision.split(",")
    if not precisions or any(p not in ("fp32", "int8", "tokens") for p in precisions):
        ap.error(f"--precision: a comma-separated list of fp32, int8 and tokens, not {args.precision!r}")
    import sacrebleu
    import softalign

    data = os.path.join(FIXTURES, "data")
    src = read_lines(os.path.join(data, "test200.en"))
    src_tokens = read_lines(os.path.join(data, "test200.en.pieces"))
    refs = read_lines(os.path.join(data, "test200.fr"))
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        if args.keep_dir:
            os.makedirs(args.keep_dir, exist_ok=True)
        for fx in args.fixtures or [os.path.join(FIXTURES, n) for n in ALL]:
            name = os.path.basename(os.path.normpath(fx))
            for precision in precisions:
                path = os.path.join(args.keep_dir or tmp, f"{name}.{precision}.softalign")
                import_model(args.bin_dir, fx, path, precision)
                model = softalign.Model.load(path)
                if model.config["pretokenized"] != (precision == "tokens"):  # the file says which text it reads
                    print(f"{name} {precision}: the model's config says pretokenized {model.config['pretokenized']}")
                    ok = False
                for kind, beam in (("greedy", 1), ("beam5", 5)):
                    options = {"device": args.device} if args.device else {}
                    if args.batch > 1:
                        options["max_batch"] = args.batch
                    tr = softalign.Translator(model, beam=beam, copy_through=False, repair_placeholders=False,
                                              **options)
                    if args.device in ("cpu", "vulkan") and tr.backend != args.device:
                        print(f"{name} {precision} {kind}: runs on {tr.backend}, not {args.device} "
                              f"({tr.backend_reason})")
                        ok = False
                        continue
                    lines = src_tokens if precision == "tokens" else src
                    if args.batch > 1:
                        results = [r.hypotheses[0] for r in tr.translate_nbest(lines, nbest=1)]
                    else:
                        results = [tr.translate_nbest(line, nbest=1).hypotheses[0] for line in lines]
                    if precision == "tokens":  # the text is the tokens, as the toolkit wrote them
                        want = read_lines(os.path.join(fx, kind + ".pieces"))
                        got = [h.text or ("<unk>" if name.startswith("joey") else "") for h in results]
                        same = sum(g == w for g, w in zip(got, want))
                        good = same >= args.target * len(want)
                        print(f"{name} --pretokenized {kind}: {same}/{len(want)} lines identical to the toolkit's "
                              "own output (tokens in, tokens out)")
                    elif precision == "fp32":
                        want = [line.split() for line in read_lines(os.path.join(fx, kind + ".pieces"))]
                        got = [h.pieces or (["<unk>"] if name.startswith("joey") else []) for h in results]
                        same = sum(g == w for g, w in zip(got, want))
                        good = same >= args.target * len(want)
                        on = f" on {tr.backend} ({tr.device})" if args.device else ""
                        print(f"{name} fp32 {kind}: {same}/{len(want)} lines identical to the toolkit's own output{on}")
                    else:
                        ours = sacrebleu.corpus_bleu([h.text for h in results], [refs]).score
                        theirs = sacrebleu.corpus_bleu(read_lines(os.path.join(fx, kind + ".txt")), [refs]).score
                        good = abs(ours - theirs) <= 1.0
                        print(f"{name} int8 {kind}: BLEU {ours:.2f}, the toolkit's {theirs:.2f} "
                              f"({ours - theirs:+.2f})")
                    ok &= good
                    sys.stdout.flush()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

"""softalign-import {opennmt-py|joeynmt} CHECKPOINT [--config CONFIG.yaml] [--src-vocab F --tgt-vocab F]
                 [--src-spm F --tgt-spm F] [--out-dir DIR] [-o OUT.softalign [CONVERTER OPTIONS]]

Writes the trainer's export layout (model.safetensors with the config in its metadata,
src.spm.model, tgt.spm.model), and with -o turns it into a model file through
softalign-convert: every option this command does not know (--int8, --fp16,
--shortlist-corpus, --meta, ...) goes to the converter as it is. The converter is
$SOFTALIGN_CONVERT, else softalign-convert beside this command, else on PATH.
Exit codes: 0 written, 2 refused (an option the format cannot express, a missing file;
nothing is written), 1 any other error.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from .errors import ImportRefused

# What reading a checkpoint needs (the command line itself needs none of them).
NEEDS = {"torch": "PyTorch (pip install torch)", "safetensors": "safetensors (pip install safetensors)",
         "sentencepiece": "SentencePiece (pip install sentencepiece)", "yaml": "PyYAML (pip install pyyaml)"}


def parser():
    ap = argparse.ArgumentParser(prog="softalign-import", description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("toolkit", choices=["opennmt-py", "joeynmt"], help="the toolkit that trained the checkpoint")
    ap.add_argument("checkpoint", help="OpenNMT-py: model.pt (onmt_release_model or a training checkpoint); "
                                       "JoeyNMT: the .ckpt file")
    ap.add_argument("--config", help="JoeyNMT: the training config (YAML); default: config.yaml beside the checkpoint")
    ap.add_argument("--src-vocab", help="JoeyNMT: the source vocabulary file (default: the config's src.voc_file, "
                                        "else src_vocab.txt beside the checkpoint)")
    ap.add_argument("--tgt-vocab", help="JoeyNMT: the target vocabulary file (default: trg.voc_file, else trg_vocab.txt)")
    ap.add_argument("--src-spm", help="the source SentencePiece model whose pieces the toolkit's vocabulary lists")
    ap.add_argument("--tgt-spm", help="the target SentencePiece model")
    ap.add_argument("-o", "--output", help="the model file to write through softalign-convert (with the options "
                                           "this command does not know, e.g. --int8)")
    ap.add_argument("--out-dir", help="also keep the export folder here (default with -o: a temporary folder; "
                                      "without -o: the checkpoint's name + '.softalign-export' beside it)")
    ap.add_argument("--name", help="model name (default: the checkpoint's file name)")
    ap.add_argument("--src-lang", default=None, help="source language code for the metadata")
    ap.add_argument("--tgt-lang", default=None, help="target language code for the metadata")
    ap.add_argument("--pretokenized", action="store_true",
                    help="a model whose text was not cut by SentencePiece (words, subword-nmt BPE, ...): the file "
                         "reads and writes tokens separated by spaces, and lists the toolkit's tokens (no --src-spm, "
                         "--tgt-spm)"),
    return ap


def run(args):
    """Without -o: the export folder written (raises ImportRefused); main() runs the converter
    on it when -o is given."""
    out = args.out_dir or os.path.splitext(args.checkpoint)[0] + ".softalign-export"
    return export(args, out)


def export(args, out):
    from .common import import_checkpoint  # needs torch
    langs = {}
    if args.src_lang is not None:
        langs["src_lang"] = args.src_lang
    if args.tgt_lang is not None:
        langs["tgt_lang"] = args.tgt_lang
    return import_checkpoint(args.toolkit, args.checkpoint, out, args.src_spm, args.tgt_spm,
                             config=args.config, src_vocab=args.src_vocab, tgt_vocab=args.tgt_vocab,
                             name=args.name, pretokenized=args.pretokenized, **langs)


def converter():
    """The softalign-convert to run: $SOFTALIGN_CONVERT, the one beside this command, or PATH's."""
    if os.environ.get("SOFTALIGN_CONVERT"):
        return os.environ["SOFTALIGN_CONVERT"]
    beside = os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])), "softalign-convert")
    return beside if os.access(beside, os.X_OK) else shutil.which("softalign-convert")


def main(argv=None):
    args, convert_args = parser().parse_known_args(argv)
    if convert_args and not args.output:
        parser().error(f"unknown options {' '.join(convert_args)} (converter options need -o OUT.softalign)")
    try:
        if not args.output:
            out = run(args)
            print(f"softalign-import: wrote {out} (model.safetensors, src.spm.model, tgt.spm.model)")
            return 0
        tool = converter()
        if not tool:
            print("softalign-import: softalign-convert not found (set SOFTALIGN_CONVERT)", file=sys.stderr)
            return 1
        with tempfile.TemporaryDirectory() as tmp:
            folder = export(args, args.out_dir or os.path.join(tmp, "export"))
            r = subprocess.run([tool, *convert_args, os.path.join(folder, "model.safetensors"), "-o", args.output])
            if r.returncode != 0:
                return r.returncode
    except ImportRefused as e:
        print(f"softalign-import: {e}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as e:
        if e.name not in NEEDS:
            raise
        print(f"softalign-import: reading a checkpoint needs {NEEDS[e.name]}, which this Python "
              f"({sys.executable}) lacks (softalign-import needs torch, safetensors and sentencepiece at "
              f"run time, not to be installed)", file=sys.stderr)
        return 1
    print(f"softalign-import: wrote {args.output}")
    return 0

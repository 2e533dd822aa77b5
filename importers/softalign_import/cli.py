"""softalign-import {opennmt-py|joeynmt} CHECKPOINT [--config CONFIG.yaml] [--src-vocab F --tgt-vocab F]
                 [--src-spm F --tgt-spm F] [--out-dir DIR]

Writes the trainer's export layout (model.safetensors with the config in its metadata,
src.spm.model, tgt.spm.model) into DIR; `softalign-convert` turns it into a model file.
Exit codes: 0 written, 2 refused (an option the format cannot express, a missing file;
nothing is written), 1 any other error.
"""
import argparse
import os
import sys

from .common import ImportRefused, import_checkpoint


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
    ap.add_argument("--out-dir", help="output folder (default: the checkpoint's name + '.softalign-export' beside it)")
    ap.add_argument("--name", help="model name (default: the checkpoint's file name)")
    ap.add_argument("--src-lang", default=None, help="source language code for the metadata")
    ap.add_argument("--tgt-lang", default=None, help="target language code for the metadata")
    ap.add_argument("--pretokenized", action="store_true",
                    help="(not yet) a model whose vocabulary is not SentencePiece pieces")
    return ap


def run(args):
    """The folder written (raises ImportRefused). The converter step (`softalign-convert
    DIR -o FILE [--int8|--fp16]`) will follow here once it reads format version 2."""
    if args.pretokenized:
        raise ImportRefused(f"{args.checkpoint}: --pretokenized is not supported yet: the importer needs "
                            "the SentencePiece models (--src-spm, --tgt-spm) whose pieces the vocabulary lists")
    out = args.out_dir or os.path.splitext(args.checkpoint)[0] + ".softalign-export"
    langs = {}
    if args.src_lang is not None:
        langs["src_lang"] = args.src_lang
    if args.tgt_lang is not None:
        langs["tgt_lang"] = args.tgt_lang
    return import_checkpoint(args.toolkit, args.checkpoint, out, args.src_spm, args.tgt_spm,
                             config=args.config, src_vocab=args.src_vocab, tgt_vocab=args.tgt_vocab,
                             name=args.name, **langs)


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        out = run(args)
    except ImportRefused as e:
        print(f"softalign-import: {e}", file=sys.stderr)
        return 2
    print(f"softalign-import: wrote {out} (model.safetensors, src.spm.model, tgt.spm.model)")
    return 0

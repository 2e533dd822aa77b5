"""The reference outputs of one golden model folder (tests/golden/<name>/golden.json),
as the tests outside Python's own use them: the source sentences, each search's
hypotheses, and their text as SentencePiece itself detokenises the ids.

    sys.path.insert(0, "tests/golden"); from golden_outputs import GoldenOutputs
"""
import json
from pathlib import Path

import sentencepiece as spm


class GoldenOutputs:
    def __init__(self, folder):
        d = Path(folder)
        self.data = json.loads((d / "golden.json").read_text(encoding="utf-8"))
        spm_file = d / ("spm.model" if (d / "spm.model").exists() else "tgt.spm.model")
        self.sp = spm.SentencePieceProcessor(model_file=str(spm_file))
        self.sentences = self.data["sentences"]
        self.sources = [s["src_text"] for s in self.sentences]

    def hyps(self, i, search):
        """Sentence i's hypotheses under the named search ("greedy", ...), best first."""
        return next(r for r in self.sentences[i]["search"] if r["name"] == search)["hyps"]

    def text(self, ids):
        return self.sp.decode(ids)

    def greedy_text(self, i):
        return self.text(self.hyps(i, "greedy")[0]["ids"])

    def greedy_texts(self):
        return [self.greedy_text(i) for i in range(len(self.sentences))]

"""The Python engines of the benchmark, each run in its own process by run_bench.py.

- torch:      the reference translator (softalign_ref.search) in float32, torch.inference_mode
- torch-int8: the same after torch.quantization.quantize_dynamic (every nn.Linear; the GRU
              matrices that the step reads as tensors stay float32)
- ort:        ONNX Runtime on the model exported as two graphs, the encoder (one sentence)
              and one decoder step (any number of rows); the search loop is the reference
              search's, in Python, driving the graphs (OnnxModel below)
- ort-int8:   the same graphs after onnxruntime.quantization.quantize_dynamic (QInt8 weights)

Only the bahdanau variant is exported to ONNX (the shipped models); other variants
skip the ort engines.
"""
import os

import numpy as np
import torch
import torch.nn as nn

from softalign_ref.model import DecoderState, EncoderOutput


class _EncoderGraph(nn.Module):
    """One unpadded sentence [1, S] → annotations, attention keys, initial decoder state."""

    def __init__(self, model):
        super().__init__()
        self.m = model

    def forward(self, src):
        cfg = self.m.cfg
        H, _ = self.m.encoder.rnn(self.m.src_emb(src))
        keys = self.m.attention.keys(H)
        hidden = torch.tanh(self.m.bridge(H[:, 0, cfg.enc_hidden:]))
        return H, keys, hidden.view(1, cfg.dec_layers, cfg.dec_hidden).transpose(0, 1)


class _StepGraph(nn.Module):
    """One decoder step for B rows → logits [B, V], attention [B, S], new hidden [L, B, d]."""

    def __init__(self, model):
        super().__init__()
        self.m = model
        # The same maxout with reshape instead of unflatten (which torch 1.13 cannot export).
        out = model.output
        out.forward = lambda s, e, c: (out.U_o(s) + out.V_o(e) + out.C_o(c)).reshape(s.shape[0], -1, 2).amax(-1)

    def forward(self, y_prev, hidden, H, keys, mask):
        enc = EncoderOutput(H, mask, None, keys, None)
        logits, alpha, state = self.m.step(enc, y_prev, DecoderState(hidden, None), 0)
        return logits, alpha, state.hidden


def export_onnx(model, out_dir, int8):
    """Writes encoder.onnx and step.onnx (and their int8 versions) once; returns the paths."""
    if model.cfg.variant != "bahdanau":
        raise ValueError(f"the ONNX export covers the bahdanau variant, not {model.cfg.variant}")
    os.makedirs(out_dir, exist_ok=True)
    enc_path, step_path = os.path.join(out_dir, "encoder.onnx"), os.path.join(out_dir, "step.onnx")
    cfg = model.cfg
    if not (os.path.exists(enc_path) and os.path.exists(step_path)):
        with torch.no_grad():
            src = torch.tensor([[5, 6, 7, cfg.eos_id]], dtype=torch.long)
            torch.onnx.export(_EncoderGraph(model), (src,), enc_path, opset_version=13,
                              input_names=["src"], output_names=["H", "keys", "hidden"],
                              dynamic_axes={"src": {1: "S"}, "H": {1: "S"}, "keys": {1: "S"}})
            B, S = 2, 4
            args = (torch.tensor([cfg.bos_id] * B, dtype=torch.long),
                    torch.zeros(cfg.dec_layers, B, cfg.dec_hidden),
                    torch.zeros(B, S, 2 * cfg.enc_hidden), torch.zeros(B, S, cfg.att_hidden),
                    torch.ones(B, S, dtype=torch.bool))
            torch.onnx.export(_StepGraph(model), args, step_path, opset_version=13,
                              input_names=["y_prev", "hidden", "H", "keys", "mask"],
                              output_names=["logits", "alpha", "hidden_out"],
                              dynamic_axes={"y_prev": {0: "B"}, "hidden": {1: "B"}, "H": {0: "B", 1: "S"},
                                            "keys": {0: "B", 1: "S"}, "mask": {0: "B", 1: "S"},
                                            "logits": {0: "B"}, "alpha": {0: "B", 1: "S"},
                                            "hidden_out": {1: "B"}})
    if not int8:
        return enc_path, step_path
    from onnxruntime.quantization import QuantType, quantize_dynamic
    q_enc, q_step = os.path.join(out_dir, "encoder.int8.onnx"), os.path.join(out_dir, "step.int8.onnx")
    for src_path, dst in ((enc_path, q_enc), (step_path, q_step)):
        if not os.path.exists(dst):
            quantize_dynamic(src_path, dst, weight_type=QuantType.QInt8)
    return q_enc, q_step


class _OnnxEncoderOutput(EncoderOutput):
    def __init__(self, H, mask, src_len, keys, hidden0):
        super().__init__(H, mask, src_len, keys, None)
        self.hidden0 = hidden0

    def select(self, idx):
        return _OnnxEncoderOutput(self.H.index_select(0, idx), self.mask.index_select(0, idx),
                                  self.src_len.index_select(0, idx), self.keys.index_select(0, idx),
                                  self.hidden0.index_select(1, idx))


class OnnxModel:
    """The encode / init_state / step interface of softalign_ref's Seq2Seq, on ONNX Runtime."""

    training = False

    def __init__(self, cfg, enc_path, step_path, threads):
        import onnxruntime as ort
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        self.cfg = cfg
        self.enc = ort.InferenceSession(enc_path, so, providers=["CPUExecutionProvider"])
        self.dec = ort.InferenceSession(step_path, so, providers=["CPUExecutionProvider"])

    def eval(self):
        return self

    def train(self, mode=True):
        return self

    def encode(self, src, src_len):
        cfg = self.cfg
        B, S = src.shape
        H = np.zeros((B, S, 2 * cfg.enc_hidden), np.float32)
        keys = np.zeros((B, S, cfg.att_hidden), np.float32)
        hidden = np.zeros((cfg.dec_layers, B, cfg.dec_hidden), np.float32)
        for b in range(B):  # one sentence at a time: no padding inside the GRU
            n = int(src_len[b])
            h, k, s0 = self.enc.run(None, {"src": src[b:b + 1, :n].numpy()})
            H[b, :n], keys[b, :n], hidden[:, b] = h[0], k[0], s0[:, 0]
        mask = torch.arange(S).unsqueeze(0) < src_len.unsqueeze(1)
        return _OnnxEncoderOutput(torch.from_numpy(H), mask, src_len, torch.from_numpy(keys),
                                  torch.from_numpy(hidden))

    def init_state(self, enc):
        return DecoderState(enc.hidden0, None)

    def step(self, enc, y_prev, state, t):
        logits, alpha, hidden = self.dec.run(None, {
            "y_prev": y_prev.numpy(), "hidden": state.hidden.numpy(), "H": enc.H.numpy(),
            "keys": enc.keys.numpy(), "mask": enc.mask.numpy()})
        return torch.from_numpy(logits), torch.from_numpy(alpha), DecoderState(torch.from_numpy(hidden), None)


def load_engine(engine, model_dir, threads, work_dir):
    """→ (model for softalign_ref.search.translate_ids, cfg)."""
    from softalign_ref import export
    from softalign_ref.train import set_threads
    # torch's intra-op pool and OpenBLAS's own pool (Debian's torch uses OpenBLAS, which
    # torch does not size): with only torch's set, "1 thread" used both cores in BLAS and
    # 2 threads oversubscribed them (2 x 2 spinning threads, 3-6x slower).
    set_threads(threads)
    model, cfg = export.load(os.path.join(model_dir, "model.safetensors"))
    if engine == "torch":
        return model, cfg
    if engine == "torch-int8":
        engines = torch.backends.quantized.supported_engines
        torch.backends.quantized.engine = "fbgemm" if "fbgemm" in engines else "qnnpack"
        q = torch.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
        q.cfg = cfg
        return q, cfg
    if engine in ("ort", "ort-int8"):
        enc_path, step_path = export_onnx(model, os.path.join(work_dir, "onnx"), engine == "ort-int8")
        return OnnxModel(cfg, enc_path, step_path, threads), cfg
    raise ValueError(f"unknown engine {engine}")

"""The model computes the equations of WEIGHTS_FORMAT.md: a plain per-step, per-position
implementation written from the formulas (float64, weights looked up by their format
names) against the model's fast teacher-forced forward, for every variant; and the
training mode's faster forms against the plain ones."""
import math

import pytest
import torch

from conftest import VARIANTS, make_config, make_model, random_batch
from softalign_ref import data as D
from softalign_ref.train import batch_loss


def sig(x):
    return 1.0 / (1.0 + torch.exp(-x))


def gru(x, h, W_ih, W_hh, b_ih, b_hh):
    """PyTorch's GRU cell: gates r, z, n; the reset gate multiplies (W_hn h + b_hn)."""
    H = h.shape[0]
    gi, gh = W_ih @ x + b_ih, W_hh @ h + b_hh
    r = sig(gi[:H] + gh[:H])
    z = sig(gi[H:2 * H] + gh[H:2 * H])
    n = torch.tanh(gi[2 * H:] + r * gh[2 * H:])
    return (1 - z) * n + z * h


def lstm(x, hc, W_ih, W_hh, b_ih, b_hh):
    """PyTorch's LSTM cell: gates i, f, g, o; (h, c) → (h', c')."""
    h, c = hc
    H = h.shape[0]
    g = W_ih @ x + b_ih + W_hh @ h + b_hh
    c = sig(g[H:2 * H]) * c + sig(g[:H]) * torch.tanh(g[2 * H:3 * H])
    return sig(g[3 * H:]) * torch.tanh(c), c


def softmax(xs):
    m = max(xs)
    e = [math.exp(x - m) for x in xs]
    return [v / sum(e) for v in e]


class Ref:
    def __init__(self, model):
        self.w = {k: v.double() for k, v in model.state_dict().items()}
        self.cfg = model.cfg

    def g(self, prefix, k, suffix=""):
        w = self.w
        return (w[f"{prefix}.weight_ih_l{k}{suffix}"], w[f"{prefix}.weight_hh_l{k}{suffix}"],
                w[f"{prefix}.bias_ih_l{k}{suffix}"], w[f"{prefix}.bias_hh_l{k}{suffix}"])

    def direction(self, x, k, suffix, order):
        """One encoder direction of layer k over positions `order` → (outputs by position, final h, final c)."""
        n = self.cfg.enc_hidden
        lstm_cell = self.cfg.cell == "lstm"
        h = c = torch.zeros(n, dtype=torch.float64)
        out = [None] * len(x)
        for j in order:
            if lstm_cell:
                h, c = lstm(x[j], (h, c), *self.g("encoder.rnn", k, suffix))
            else:
                h = gru(x[j], h, *self.g("encoder.rnn", k, suffix))
            out[j] = h
        return out, h, c

    def encode(self, ids):
        """→ annotations H (S' of them, or one of zeros) and the final states F_k, F^c_k per layer."""
        cfg, n = self.cfg, self.cfg.enc_hidden
        if not cfg.source_eos:
            ids = ids[:-1]  # the encoder does not read EOS
        S = len(ids)
        A = cfg.enc_directions * n
        zero = torch.zeros(A, dtype=torch.float64)
        if S == 0:
            return [zero], [zero] * cfg.enc_layers, [zero] * cfg.enc_layers
        x = [self.w["src_emb.weight"][i] for i in ids]
        F, Fc = [], []
        for k in range(cfg.enc_layers):
            if cfg.enc_directions == 2:
                f, fh, fc = self.direction(x, k, "", range(S))
                b, bh, bc = self.direction(x, k, "_reverse", reversed(range(S)))
                x = [torch.cat([f[j], b[j]]) for j in range(S)]
                F.append(torch.cat([fh, bh])); Fc.append(torch.cat([fc, bc]))
            else:
                order = reversed(range(S)) if cfg.reverse_source else range(S)
                x, h, c = self.direction(x, k, "", order)
                F.append(h); Fc.append(c)
        return x, F, Fc  # h_j = [→h_j ; ←h_j] (or the one direction's)

    def init(self, H, F, Fc):
        """→ (layer states, layer cells or None, encdec's c)."""
        cfg, n, d, L = self.cfg, self.cfg.enc_hidden, self.cfg.dec_hidden, self.cfg.dec_layers
        w = self.w
        kind = cfg.init_kind()
        top = F[-1]
        x = top if cfg.variant == "encdec" else None
        blocks = lambda v: [v[k * d:(k + 1) * d] for k in range(L)]  # noqa: E731
        cells = None
        if kind == "tanh-backward":
            s = blocks(torch.tanh(w["bridge.weight"] @ H[0][n:] + w["bridge.bias"]))
        elif kind == "tanh-final":
            s = blocks(torch.tanh(w["bridge.weight"] @ top + w["bridge.bias"]))
        elif kind == "final":
            s, cells = list(F), list(Fc)
        elif kind == "relu-final":
            def relu_map(states, name):
                G = torch.cat(states)
                m = L * n
                pieces = [torch.relu(w[f"{name}.weight"] @ G[p * m:(p + 1) * m] + w[f"{name}.bias"])
                          for p in range(cfg.enc_directions)]
                return blocks(torch.cat(pieces))
            s = relu_map(F, "bridge")
            if cfg.cell == "lstm":
                cells = relu_map(Fc, "bridge_c")
        elif kind == "last-forward":
            s = [top[:n]] * L
        else:
            s = [torch.zeros(d, dtype=torch.float64)] * L
            cells = list(s)
        if cfg.cell == "lstm" and cells is None:
            cells = list(s)
        return s, (cells if cfg.cell == "lstm" else None), x

    def stack(self, x, s):
        """s: layer states (GRU) or (states, cells) (LSTM)."""
        if self.cfg.cell == "lstm":
            hs, cs = s
            out_h, out_c = [], []
            for k in range(self.cfg.dec_layers):
                h, c = lstm(x, (hs[k], cs[k]), *self.g("decoder.rnn", k))
                out_h.append(h); out_c.append(c)
                x = h
            return out_h, out_c
        out = []
        for k in range(self.cfg.dec_layers):
            x = gru(x, s[k], *self.g("decoder.rnn", k))
            out.append(x)
        return out

    def maxout_logits(self, s, e, c):
        w = self.w
        u = w["output.U_o.weight"] @ s + w["output.U_o.bias"] + w["output.V_o.weight"] @ e + w["output.C_o.weight"] @ c
        t = torch.stack([torch.maximum(u[2 * k], u[2 * k + 1]) for k in range(u.shape[0] // 2)])
        return w["generator.weight"] @ t + w["generator.bias"]

    def luong_weights(self, h, H, t):
        cfg, w, S, D = self.cfg, self.w, len(H), self.cfg.window_d
        if cfg.score == "location":
            return softmax([float(v) for v in (w["attention.W_loc.weight"] @ h)[:S]])
        def score(hj):
            if cfg.score == "dot":
                return float(h @ hj)
            if cfg.score == "general":
                return float(h @ (w["attention.W_a.weight"] @ hj))
            q = w["attention.W_q.weight"] @ h + (w["attention.W_q.bias"] if cfg.query_bias else 0)
            return float(w["attention.v_a.weight"][0] @ torch.tanh(q + w["attention.W_k.weight"] @ hj))
        if cfg.scope == "global":
            return softmax([score(hj) for hj in H])
        if cfg.scope == "local-m":
            c = min(t, S - 1)
        else:
            p = S * float(sig(w["attention.v_p.weight"][0] @ torch.tanh(w["attention.W_p.weight"] @ h)))
            c = min(math.floor(p), S - 1)
        win = [j for j in range(S) if c - D <= j <= c + D]
        soft = softmax([score(H[j]) for j in win])
        a = [0.0] * S
        for j, v in zip(win, soft):
            a[j] = v * (math.exp(-(j - p) ** 2 / (2 * (D / 2) ** 2)) if cfg.scope == "local-p" else 1.0)
        return a

    def decode(self, src_ids, tgt_in):
        cfg, w = self.cfg, self.w
        H, F, Fc = self.encode(src_ids)
        hs, cs, ctx = self.init(H, F, Fc)
        s = (hs, cs) if cfg.cell == "lstm" else hs
        top = (lambda s: s[0][-1]) if cfg.cell == "lstm" else (lambda s: s[-1])  # noqa: E731
        pad = [0.0] * (len(src_ids) - len(H))  # the EOS position without source EOS: weight 0
        feed = torch.zeros(cfg.dec_hidden, dtype=torch.float64)
        logits, attn = [], []
        for t, y in enumerate(tgt_in):
            e = w["tgt_emb.weight"][y]
            if cfg.variant == "encdec":
                s = self.stack(torch.cat([e, ctx]), s)
                logits.append(self.maxout_logits(top(s), e, ctx))
                a = [0.0] * len(H)
            elif cfg.variant == "bahdanau":
                q = w["attention.W_a.weight"] @ top(s)
                a = softmax([float(w["attention.v_a.weight"][0] @ torch.tanh(
                    q + w["attention.U_a.weight"] @ hj + w["attention.U_a.bias"])) for hj in H])
                c = sum(aj * hj for aj, hj in zip(a, H))
                s = self.stack(torch.cat([e, c]), s)
                logits.append(self.maxout_logits(top(s), e, c))
            else:
                x = torch.cat([e, feed]) if cfg.input_feeding else e
                s = self.stack(x, s)
                a = self.luong_weights(top(s), H, t)
                c = sum(aj * hj for aj, hj in zip(a, H))
                feed = w["decoder.W_c.weight"] @ torch.cat([c, top(s)])
                if cfg.combine_bias:
                    feed = feed + w["decoder.W_c.bias"]
                if cfg.combine_tanh:
                    feed = torch.tanh(feed)
                logits.append(w["generator.weight"] @ feed + w["generator.bias"])
            attn.append(list(a) + pad)
        return torch.stack(logits), torch.tensor(attn, dtype=torch.float64)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_forward_matches_the_equations(name):
    cfg = make_config(name)
    model = make_model(name, seed=11)
    lens = [6, 3]
    src, src_len, tgt = random_batch(cfg, lens, T=8, seed=2)
    with torch.no_grad():
        logits, attn = model(src, src_len, tgt)
    ref = Ref(model)
    for b, n in enumerate(lens):
        rl, ra = ref.decode(src[b, :n].tolist(), tgt[b].tolist())
        assert torch.allclose(logits[b].double(), rl, atol=2e-5, rtol=0), name
        assert torch.allclose(attn[b, :, :n].double(), ra, atol=2e-6, rtol=0), name


def _loss_and_grads(model, b, training):
    model.train(training)
    model.drop.p = 0.0  # the same function in both modes
    model.zero_grad()
    loss = batch_loss(model, b, 0.1)
    loss.backward()
    return float(loss), {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_training_forms_give_the_same_loss_and_gradients(name):
    """Training mode computes some things in faster forms (the unpacked encoder;
    bahdanau's scores through sigmoid and H's gradient from all steps' contexts in one
    product): the loss and every gradient equal those of the plain forms (eval mode)."""
    cfg = make_config(name)
    model = make_model(name, seed=4)
    src, src_len, tgt = random_batch(cfg, [9, 4, 12, 6], T=8, seed=3)
    pairs = [(src[i, :int(src_len[i])].tolist(), tgt[i, 1:].tolist()) for i in range(src.size(0))]
    b = D.collate(pairs, list(range(len(pairs))))
    plain_loss, plain = _loss_and_grads(model, b, False)
    fast_loss, fast = _loss_and_grads(model, b, True)
    assert fast_loss == pytest.approx(plain_loss, rel=1e-6)
    assert plain.keys() == fast.keys()
    for n in plain:  # fp32 rounding: sums in another order
        tol = 1e-5 * float(plain[n].abs().max()) + 1e-6
        assert float((fast[n] - plain[n]).abs().max()) <= tol, (name, n)


def test_training_forms_leave_no_reference_cycle():
    """The training forms' helper (SourceGradients) is freed with the graph after backward,
    without the cyclic garbage collector (a cycle would keep each step's tensors alive
    until the collector runs)."""
    import gc
    import weakref
    from softalign_ref import model as M
    cfg = make_config("bahdanau")
    model = make_model("bahdanau").train()
    src, src_len, tgt = random_batch(cfg, [9, 4, 12, 6], T=8)
    pairs = [(src[i, :int(src_len[i])].tolist(), tgt[i, 1:].tolist()) for i in range(src.size(0))]
    b = D.collate(pairs, list(range(len(pairs))))
    made = []
    init = M.SourceGradients.__init__

    def tracked(self):
        init(self)
        made.append(weakref.ref(self))

    gc.disable()
    try:
        M.SourceGradients.__init__ = tracked
        for _ in range(3):
            loss = batch_loss(model, b, 0.1)
            loss.backward()
            del loss
    finally:
        M.SourceGradients.__init__ = init
        gc.enable()
    assert len(made) == 3
    assert all(r() is None for r in made)

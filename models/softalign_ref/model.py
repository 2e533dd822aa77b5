"""The reference models: exactly the equations of DESIGN.md §2 / WEIGHTS_FORMAT.md.

One `Seq2Seq` module covers every variant (encdec, bahdanau, luong with every
score and scope, input feeding, stacked layers). Its state_dict names are the
tensor names of WEIGHTS_FORMAT.md, so an export is the state_dict + the config.

Two ways to run it, which compute the same numbers:
- `forward(src, src_len, tgt_in)`: teacher-forced training forward, written for
  speed (attention keys once per batch, the embedding part of the decoder's
  input projection for all steps at once, the output layer after the
  recurrence, `nn.GRU` over the whole target where no step depends on the
  previous step's attention; in training mode with gradients, bahdanau's
  scores through sigmoid and H's gradient from all steps' contexts in one
  product: the same numbers up to rounding);
- `encode` + `init_state` + `step`: one decoder step at a time, used by search.

Padding (pad_id after the end of a sentence) never changes a sentence's result:
the encoder packs its input and every attention softmax is masked.

Format version 2 (WEIGHTS_FORMAT.md): LSTM cells (`cell`), one-way and reversed
encoders (`enc_directions`, `reverse_source`), a source whose EOS the encoder does
not read (`source_eos`), the decoder's first states (`decoder_init`), the concat
query's bias, the attentional layer's bias and optional tanh. A version-1 config
runs exactly the code it ran before.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from .config import ModelConfig


def fp32_products(t):
    """A block whose products run in fp32 even under bf16 autocast (training.precision):
    for the per-step products over the source (attention scores, contexts). They read a
    [B, S, ·] operand once, so autocast's bf16 copy of it would cost more than the
    product (measured: casts were a fifth of a bf16 training step)."""
    return torch.autocast(t.device.type, enabled=False)


def autocast_dtype(device_type):
    """The dtype autocast runs products in on this device type, or None outside autocast."""
    if device_type == "cpu":
        return torch.get_autocast_cpu_dtype() if torch.is_autocast_cpu_enabled() else None
    return torch.get_autocast_gpu_dtype() if torch.is_autocast_enabled() else None


def context(alpha, H):
    """c = Σ_j α_j h_j for alpha [B, S], H [B, S, 2n] → [B, 2n] (fp32)."""
    with fp32_products(H):
        return torch.bmm(alpha.unsqueeze(1), H.float()).squeeze(1)


class _StepContext(torch.autograd.Function):
    """c = α H for one step of the teacher-forced loop (SourceGradients.context)."""

    @staticmethod
    def forward(ctx, alpha, H, grads):
        ctx.save_for_backward(alpha, H)
        ctx.grads = grads
        with fp32_products(H):
            return torch.bmm(alpha.unsqueeze(1), H).squeeze(1)

    @staticmethod
    def backward(ctx, dc):
        alpha, H = ctx.saved_tensors
        ctx.grads.record(alpha, dc)  # H's share, α_tᵀ dc_t, is summed by SourceGradients
        return torch.bmm(dc.unsqueeze(1), H.transpose(1, 2)).squeeze(1), None, None


class _SourceTap(torch.autograd.Function):
    """H unchanged; in the backward pass H also gets the steps' share, Σ_t α_tᵀ dc_t."""

    @staticmethod
    def forward(ctx, H, grads):
        ctx.grads = grads
        return H.view_as(H)

    @staticmethod
    def backward(ctx, g):
        return g + ctx.grads.total(), None


class SourceGradients:
    """The annotations' gradient from the contexts of a teacher-forced loop, in one product.

    Each step's c_t = α_t H sends H the gradient α_tᵀ dc_t: a [B, S, 2n] tensor per step,
    added one by one (measured: these products and sums were a sixth of a bf16 training
    step, bahdanau, 384 units). Here the steps record (α_t, dc_t) in the backward pass and H
    gets Aᵀ dC, one batched product over all steps: the same sum in another order.

    The graph's nodes hold this object and it holds no tensor of the graph (tap() returns
    H rather than keeping it, record() keeps detached tensors and total() empties the lists),
    so there is no reference cycle: everything is freed with the graph, not later by the
    cyclic garbage collector.
    """

    def __init__(self):
        self.alphas, self.dcs = [], []

    def tap(self, H):
        """H for context(), fp32 as context() computes (a no-op unless autocast lowered it)."""
        return _SourceTap.apply(H.float(), self)

    def context(self, alpha, H):
        """c_t = α_t H [B, 2n] (fp32) for H from tap(), as context(alpha, H)."""
        return _StepContext.apply(alpha, H, self)

    def record(self, alpha, dc):
        self.alphas.append(alpha.detach())
        self.dcs.append(dc.detach())

    def total(self):
        A, dC = torch.stack(self.alphas, 1), torch.stack(self.dcs, 1)  # [B, T, S], [B, T, 2n]
        self.alphas, self.dcs = [], []
        with fp32_products(dC):
            return torch.bmm(A.transpose(1, 2), dC.float())


def gru_cell(gi, h, w_hh, b_hh):
    """One PyTorch GRU cell step given the input projection gi = W_ih x + b_ih.

    Gates in order r, z, n; n = tanh(gi_n + r * (W_hn h + b_hn)); h' = (1 - z) n + z h.
    """
    # .float(): under bf16 autocast (training.precision) the products come out in
    # bf16; the gates and the state stay fp32 (a no-op otherwise).
    gh = F.linear(h, w_hh, b_hh).float()
    i_r, i_z, i_n = gi.float().chunk(3, -1)
    h_r, h_z, h_n = gh.chunk(3, -1)
    r = torch.sigmoid(i_r + h_r)
    z = torch.sigmoid(i_z + h_z)
    n = torch.tanh(i_n + r * h_n)
    return n + z * (h - n)


def lstm_cell(gi, h, c, w_hh, b_hh):
    """One PyTorch LSTM cell step given gi = W_ih x + b_ih: gates i, f, g, o;
    c' = σ(f) c + σ(i) tanh(g), h' = σ(o) tanh(c'). → (h', c')."""
    g = gi.float() + F.linear(h, w_hh, b_hh).float()
    i, f, gg, o = g.chunk(4, -1)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(gg)
    return torch.sigmoid(o) * torch.tanh(c), c


def flip_within(x, lens):
    """x [B, S, ·] with each row's first lens[b] positions reversed (the others kept)."""
    S = x.size(1)
    j = torch.arange(S, device=x.device).unsqueeze(0)
    last = (lens.to(x.device) - 1).unsqueeze(1)
    rev = torch.where(j <= last, last - j, j).unsqueeze(-1)
    return x.gather(1, rev.expand(-1, -1, x.size(2)))


class EncoderOutput:
    """What the decoder needs from the source, per sentence (dim 0 is the batch)."""

    def __init__(self, H, mask, src_len, keys, ctx, finals=None):
        self.H = H              # [B, S, A] annotations (zeros at padding)
        self.mask = mask        # [B, S] True at attended positions
        self.src_len = src_len  # [B] long: attended positions (S, or S' = max(S - 1, 1) without source EOS)
        self.keys = keys        # attention keys [B, S, k] or None
        self.ctx = ctx          # encdec's fixed context [B, A] or None
        self.finals = finals    # (h_n, c_n or None): final states [L_e * dirs, B, n] in nn.GRU's order

    def select(self, idx):
        """The rows idx (e.g. one row per beam hypothesis)."""
        sel = lambda x: None if x is None else x.index_select(0, idx)
        fin = None
        if self.finals is not None:
            fin = tuple(None if x is None else x.index_select(1, idx) for x in self.finals)
        return EncoderOutput(sel(self.H), sel(self.mask), sel(self.src_len), sel(self.keys), sel(self.ctx), fin)


class DecoderState:
    """The decoder's recurrent state: hidden [L_d, B, d], LSTM cells [L_d, B, d] (or None)
    and luong's fed h~ [B, d] (or None)."""

    def __init__(self, hidden, feed, cell=None):
        self.hidden = hidden
        self.feed = feed
        self.cell = cell

    def select(self, idx):
        return DecoderState(self.hidden.index_select(1, idx),
                            None if self.feed is None else self.feed.index_select(0, idx),
                            None if self.cell is None else self.cell.index_select(1, idx))


class Encoder(nn.Module):
    """L_e GRU or LSTM layers (bidirectional, one-way or one-way reversed) over packed
    source embeddings."""

    def __init__(self, cfg):
        super().__init__()
        rnn = nn.LSTM if cfg.cell == "lstm" else nn.GRU
        self.lstm = cfg.cell == "lstm"
        self.bidirectional = cfg.enc_directions == 2
        self.reverse = cfg.reverse_source
        self.rnn = rnn(cfg.emb_size, cfg.enc_hidden, num_layers=cfg.enc_layers, bidirectional=self.bidirectional,
                       batch_first=True, dropout=cfg.dropout if cfg.enc_layers > 1 else 0.0)

    def forward(self, emb, src_len):
        """→ (H [B, S, A], (h_n, c_n or None)): the final states of every layer and
        direction, [L_e * dirs, B, n] in nn.GRU's order."""
        if self.training and self.bidirectional and not self.lstm:
            return self.forward_unpacked(emb, src_len)
        x = flip_within(emb, src_len) if self.reverse else emb
        packed = pack_padded_sequence(x, src_len.cpu(), batch_first=True, enforce_sorted=False)
        out, hn = self.rnn(packed)
        H, _ = pad_packed_sequence(out, batch_first=True, total_length=emb.size(1))
        if self.reverse:
            H = flip_within(H, src_len)
        return H, (hn if not self.lstm else hn[0], None if not self.lstm else hn[1])

    def forward_unpacked(self, emb, src_len):
        """The same annotations without packing (used in training, for speed).

        PyTorch's packed GRU backward takes a slice of the whole input projection per
        time step and builds a full-size gradient for each slice: measured 40% of a
        training step. Here each direction runs unpacked: the forward one over the
        padded batch (padding comes after a sentence, so it changes nothing), the
        backward one over each sentence reversed within its own length; padding
        positions are zeroed, as pad_packed_sequence does.
        """
        rnn = self.rnn
        B, S, _ = emb.shape
        j = torch.arange(S, device=emb.device).unsqueeze(0)
        last = (src_len.to(emb.device) - 1).unsqueeze(1)
        valid = (j <= last).unsqueeze(-1)                       # [B, S, 1]
        rev = torch.where(j <= last, last - j, j).unsqueeze(-1)  # an involution
        x = emb
        rows = torch.arange(B, device=emb.device)
        finals = []
        for k in range(rnn.num_layers):
            if k > 0:
                x = F.dropout(x, rnn.dropout, self.training)
            outs = []
            for sfx in ("", "_reverse"):
                w = [getattr(rnn, f"{n}_l{k}{sfx}") for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
                xi = x if not sfx else x.gather(1, rev.expand(-1, -1, x.size(2)))
                h0 = x.new_zeros(1, B, rnn.hidden_size)
                # the kernel nn.GRU itself calls, for one layer and one direction
                y, _ = torch._VF.gru(xi, h0, w, True, 1, 0.0, self.training, False, True)
                outs.append(y if not sfx else y.gather(1, rev.expand(-1, -1, y.size(2))))
                # final states: forward after the last position, backward at j = 0
                finals.append(outs[-1][rows, last[:, 0]] if not sfx else outs[-1][:, 0])
            x = torch.cat(outs, dim=-1) * valid
        return x, (torch.stack(finals, 0), None)


class Decoder(nn.Module):
    """The decoder GRU stack (`decoder.rnn`) and luong's W_c (`decoder.W_c`)."""

    def __init__(self, cfg):
        super().__init__()
        m, A, d = cfg.emb_size, cfg.ann_size, cfg.dec_hidden
        if cfg.variant == "luong":
            in0 = m + d if cfg.input_feeding else m
        else:
            in0 = m + A
        rnn = nn.LSTM if cfg.cell == "lstm" else nn.GRU
        self.rnn = rnn(in0, d, num_layers=cfg.dec_layers, batch_first=True,
                       dropout=cfg.dropout if cfg.dec_layers > 1 else 0.0)
        if cfg.variant == "luong":
            self.W_c = nn.Linear(A + d, d, bias=cfg.combine_bias)

    def weights(self, k):
        r = self.rnn
        return (getattr(r, f"weight_ih_l{k}"), getattr(r, f"bias_ih_l{k}"),
                getattr(r, f"weight_hh_l{k}"), getattr(r, f"bias_hh_l{k}"))


class BahdanauAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        a, A, d = cfg.att_hidden, cfg.ann_size, cfg.dec_hidden
        self.W_a = nn.Linear(d, a, bias=False)
        self.U_a = nn.Linear(A, a)
        self.v_a = nn.Linear(a, 1, bias=False)

    def keys(self, H):
        return self.U_a(H)

    def forward(self, s, keys, mask):
        """s [B, d] (previous top state) → alpha [B, S]."""
        x = torch.tanh(keys + self.W_a(s).unsqueeze(1))  # fp32, as keys are
        with fp32_products(x):
            e = self.v_a(x).squeeze(-1)
        return torch.softmax(e.masked_fill(~mask, float("-inf")), dim=-1)

    def forward_doubled(self, s, keys2, mask):
        """The same alpha from keys2 = 2 keys, for the training loop.

        v·tanh(x) = 2 v·σ(2x) − Σ v, and the softmax ignores the constant Σ v. Debian's
        PyTorch (1.13, CPU) runs tanh one element at a time: 5× sigmoid's time, measured
        at a seventh of a training step over [B, S, a].
        """
        x = torch.sigmoid(keys2 + 2.0 * self.W_a(s).unsqueeze(1))
        with fp32_products(x):
            e = 2.0 * self.v_a(x).squeeze(-1)
        return torch.softmax(e.masked_fill(~mask, float("-inf")), dim=-1)


class LuongAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.score, self.scope, self.D = cfg.score, cfg.scope, cfg.window_d
        a, A, d = cfg.att_hidden, cfg.ann_size, cfg.dec_hidden
        if self.score == "general":
            self.W_a = nn.Linear(A, d, bias=False)
        elif self.score == "concat":
            self.W_q = nn.Linear(d, a, bias=cfg.query_bias)
            self.W_k = nn.Linear(A, a, bias=False)
            self.v_a = nn.Linear(a, 1, bias=False)
        elif self.score == "location":
            self.W_loc = nn.Linear(d, cfg.max_src_len, bias=False)
        if self.scope == "local-p":
            self.W_p = nn.Linear(d, a, bias=False)
            self.v_p = nn.Linear(a, 1, bias=False)

    def keys(self, H):
        if self.score == "general":
            return self.W_a(H)
        if self.score == "concat":
            return self.W_k(H)
        return None

    def scores(self, Q, H, keys):
        """Q [B, T, d] → scores [B, T, S]."""
        if self.score == "dot":
            return torch.bmm(Q, H.transpose(1, 2))
        if self.score == "general":
            return torch.bmm(Q, keys.transpose(1, 2))
        if self.score == "concat":
            q = self.W_q(Q)  # [B, T, a]
            return self.v_a(torch.tanh(q.unsqueeze(2) + keys.unsqueeze(1))).squeeze(-1)
        return self.W_loc(Q)[:, :, :H.size(1)]  # location

    def forward(self, Q, H, keys, mask, src_len, t0):
        """Attention weights [B, T, S] for decoder states Q [B, T, d] at steps t0 .. t0+T-1."""
        B, T, S = Q.size(0), Q.size(1), H.size(1)
        e = self.scores(Q, H, keys).float()
        valid = mask.unsqueeze(1).expand(B, T, S)
        if self.scope == "global":
            return torch.softmax(e.masked_fill(~valid, float("-inf")), dim=-1)
        j = torch.arange(S, device=Q.device).view(1, 1, S)
        last = (src_len - 1).view(B, 1)
        if self.scope == "local-m":
            steps = torch.arange(t0, t0 + T, device=Q.device).view(1, T)
            centre = torch.minimum(steps, last)                        # [B, T]
        else:  # local-p
            p = src_len.to(Q.dtype).view(B, 1) * torch.sigmoid(self.v_p(torch.tanh(self.W_p(Q).float())).squeeze(-1).float())
            centre = torch.minimum(torch.floor(p).long(), last)       # [B, T]
        c = centre.unsqueeze(-1)
        inside = valid & (j >= c - self.D) & (j <= c + self.D)
        alpha = torch.softmax(e.masked_fill(~inside, float("-inf")), dim=-1)
        if self.scope == "local-p":
            sigma = self.D / 2.0
            alpha = alpha * torch.exp(-((j.to(Q.dtype) - p.unsqueeze(-1)) ** 2) / (2.0 * sigma * sigma))
        return alpha


class MaxoutOutput(nn.Module):
    """bahdanau/encdec: u = U_o s + b_o + V_o E_y y_{i-1} + C_o c; t_k = max(u_2k, u_2k+1)."""

    def __init__(self, cfg):
        super().__init__()
        l2, m, A, d = 2 * cfg.maxout_size, cfg.emb_size, cfg.ann_size, cfg.dec_hidden
        self.U_o = nn.Linear(d, l2)
        self.V_o = nn.Linear(m, l2, bias=False)
        self.C_o = nn.Linear(A, l2, bias=False)

    def forward(self, s, e, c):
        u = self.U_o(s).float() + self.V_o(e) + self.C_o(c)
        return u.unflatten(-1, (-1, 2)).amax(-1)


class Seq2Seq(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        cfg.validate()
        self.cfg = cfg
        m, n, d, L = cfg.emb_size, cfg.enc_hidden, cfg.dec_hidden, cfg.dec_layers
        self.src_emb = nn.Embedding(cfg.src_vocab, m)
        self.encoder = Encoder(cfg)
        init = cfg.init_kind()
        if init == "tanh-backward":
            self.bridge = nn.Linear(n, L * d)
        elif init == "tanh-final":
            self.bridge = nn.Linear(cfg.ann_size, L * d)
        elif init == "relu-final":
            self.bridge = nn.Linear(L * n, L * n)
            if cfg.cell == "lstm":
                self.bridge_c = nn.Linear(L * n, L * n)
        else:  # final, last-forward, zero: no tensor
            self.bridge = None
        self.tgt_emb = nn.Embedding(cfg.tgt_vocab, m)
        self.decoder = Decoder(cfg)
        if cfg.variant == "bahdanau":
            self.attention = BahdanauAttention(cfg)
        elif cfg.variant == "luong":
            self.attention = LuongAttention(cfg)
        if cfg.variant == "luong":
            self.generator = nn.Linear(d, cfg.tgt_vocab)
        else:
            self.output = MaxoutOutput(cfg)
            self.generator = nn.Linear(cfg.maxout_size, cfg.tgt_vocab)
        self.drop = nn.Dropout(cfg.dropout)

    # ---- encoder ----------------------------------------------------------

    def encode(self, src, src_len):
        """src [B, S] (pad_id after each sentence), src_len [B] → EncoderOutput."""
        cfg = self.cfg
        if src.dim() != 2 or src_len.dim() != 1 or src.size(0) != src_len.size(0):
            raise ValueError(f"encode: src must be [B, S] and src_len [B], got {tuple(src.shape)} and {tuple(src_len.shape)}")
        if int(src_len.min()) < 1 or int(src_len.max()) > src.size(1):
            raise ValueError("encode: every src_len must be in [1, S]")
        if int(src_len.max()) > cfg.max_src_len:
            raise ValueError(f"source of {int(src_len.max())} pieces exceeds max_src_len = {cfg.max_src_len}")
        S = src.size(1)
        empty = None
        if not cfg.source_eos:
            # the encoder reads the S' = S - 1 pieces before EOS; an empty source (S' = 0)
            # has one attended position whose annotation is zeros, and zero final states
            empty = src_len == 1
            src_len = torch.clamp(src_len - 1, min=1)
        mask = torch.arange(S, device=src.device).unsqueeze(0) < src_len.unsqueeze(1)
        H, (hn, cn) = self.encoder(self.drop(self.src_emb(src)), src_len)
        if empty is not None and bool(empty.any()):
            keep = (~empty).to(H.dtype)
            H = H * keep.view(-1, 1, 1)
            hn = hn * keep.view(1, -1, 1)
            cn = None if cn is None else cn * keep.view(1, -1, 1)
        ctx = None
        if cfg.variant == "encdec":
            ctx = self._final_top(H, src_len)
        keys = self.attention.keys(H) if cfg.variant != "encdec" else None
        if keys is not None:
            keys = keys.float()  # fp32 under bf16 autocast: they take part in every step's sums
        return EncoderOutput(H, mask, src_len, keys, ctx, (hn, cn))

    def _final_top(self, H, src_len):
        """F_top, the top encoder layer's final states read from the annotations:
        [→h_{S'-1} ; ←h_0] (bidirectional), →h_{S'-1} (one-way), h_0 (reversed)."""
        cfg = self.cfg
        n = cfg.enc_hidden
        rows = torch.arange(H.size(0), device=H.device)
        if cfg.enc_directions == 2:
            return torch.cat([H[rows, src_len - 1, :n], H[:, 0, n:]], dim=-1)
        return H[:, 0] if cfg.reverse_source else H[rows, src_len - 1]

    def init_state(self, enc):
        """The decoder's first state (decoder_init, WEIGHTS_FORMAT.md "Bridge"), one block
        of d per decoder layer: version 1's s_0 = tanh(W_init ←h_0 + b) (encdec: of c)."""
        cfg = self.cfg
        init, L, d, n = cfg.init_kind(), cfg.dec_layers, cfg.dec_hidden, cfg.enc_hidden
        lstm = cfg.cell == "lstm"
        B = enc.H.size(0)
        cell = None

        def layers(x):  # [B, L * d] → [L, B, d]
            return x.reshape(B, L, d).transpose(0, 1).contiguous()

        def per_layer(states):  # [L_e * dirs, B, n] → G [B, L_e * A]: [F_0 ; … ; F_{L-1}]
            return states.permute(1, 0, 2).reshape(B, -1)

        if init == "tanh-backward":
            x = enc.H[:, 0, n:]
            hidden = layers(torch.tanh(self.bridge(x).float()))
        elif init == "tanh-final":
            x = enc.ctx if cfg.variant == "encdec" else self._final_top(enc.H, enc.src_len)
            hidden = layers(torch.tanh(self.bridge(x).float()))
        elif init == "final":
            hidden = layers(per_layer(enc.finals[0]).float())
            if lstm:
                cell = layers(per_layer(enc.finals[1]).float())
        elif init == "relu-final":
            def relu_bridge(lin, states):
                G = per_layer(states).reshape(B, cfg.enc_directions, L * n)
                return layers(torch.relu(lin(G).float()).reshape(B, -1))
            hidden = relu_bridge(self.bridge, enc.finals[0])
            if lstm:
                cell = relu_bridge(self.bridge_c, enc.finals[1])
        elif init == "last-forward":
            top = enc.finals[0][-cfg.enc_directions]  # the top layer's forward (or only) direction
            hidden = top.float().unsqueeze(0).expand(L, B, d).contiguous()
        else:  # zero
            hidden = enc.H.new_zeros(L, B, d, dtype=torch.float32)
            if lstm:
                cell = torch.zeros_like(hidden)
        if lstm and cell is None:
            cell = hidden.clone()  # JoeyNMT's rule: each layer's cell starts as its state
        feed = None
        if cfg.variant == "luong" and cfg.input_feeding:
            feed = enc.H.new_zeros(B, cfg.dec_hidden)
        return DecoderState(hidden, feed, cell)

    # ---- decoder pieces ---------------------------------------------------

    def _stack_step(self, gi0, hidden, cell=None):
        """One step of the decoder stack; gi0 is layer 0's input projection.
        → [L, B, d] (GRU), or ([L, B, d], cells [L, B, d]) for LSTM (cell given)."""
        if cell is not None:
            hs, cs = self._stack_step_list(gi0, list(hidden.unbind(0)), list(cell.unbind(0)))
            return torch.stack(hs, 0), torch.stack(cs, 0)
        out = []
        x = None
        for k in range(self.cfg.dec_layers):
            w_ih, b_ih, w_hh, b_hh = self.decoder.weights(k)
            gi = gi0 if k == 0 else F.linear(self.drop(x), w_ih, b_ih)
            x = gru_cell(gi, hidden[k], w_hh, b_hh)
            out.append(x)
        return torch.stack(out, 0)

    def _luong_out(self, Q, enc, t0):
        """Attention and h~ for top states Q [B, T, d] → (h~ [B, T, d], alpha [B, T, S])."""
        alpha = self.attention(Q, enc.H, enc.keys, enc.mask, enc.src_len, t0)
        c = torch.bmm(alpha, enc.H).float()
        ht = self.decoder.W_c(torch.cat([c, Q], dim=-1)).float()
        return (torch.tanh(ht) if self.cfg.combine_tanh else ht), alpha

    def _maxout_logits(self, s, e, c):
        return self.generator(self.drop(self.output(s, e, c)))

    # ---- single step (search) ----------------------------------------------

    def step(self, enc, y_prev, state, t):
        """One decoder step for all rows: y_prev [B] long, t the 0-based step.

        Returns (logits [B, V], attention [B, S], new DecoderState).
        """
        cfg = self.cfg
        m = cfg.emb_size
        e = self.tgt_emb(y_prev)
        w_ih0, b_ih0, _, _ = self.decoder.weights(0)
        if cfg.variant == "luong":
            x = e if state.feed is None else torch.cat([e, state.feed], dim=-1)
            hidden, cell = self._stack_step_state(F.linear(x, w_ih0, b_ih0), state)
            ht, alpha = self._luong_out(hidden[-1].unsqueeze(1), enc, t)
            ht, alpha = ht.squeeze(1), alpha.squeeze(1)
            feed = ht if state.feed is not None else None
            return self.generator(ht), alpha, DecoderState(hidden, feed, cell)
        if cfg.variant == "bahdanau":
            alpha = self.attention(state.hidden[-1], enc.keys, enc.mask)
            c = context(alpha, enc.H)
        else:
            c = enc.ctx
            alpha = enc.H.new_zeros(enc.H.shape[:2])
        hidden, cell = self._stack_step_state(F.linear(torch.cat([e, c], dim=-1), w_ih0, b_ih0), state)
        return self._maxout_logits(hidden[-1], e, c), alpha, DecoderState(hidden, None, cell)

    def _stack_step_state(self, gi0, state):
        """_stack_step on a DecoderState → (hidden, cells or None)."""
        if state.cell is None:
            return self._stack_step(gi0, state.hidden), None
        return self._stack_step(gi0, state.hidden, state.cell)

    def _rnn_state(self, state):
        """The initial state argument of nn.GRU / nn.LSTM."""
        return state.hidden if state.cell is None else (state.hidden, state.cell)

    # ---- teacher-forced forward (training) ----------------------------------

    def forward(self, src, src_len, tgt_in):
        """Teacher-forced decoding. Returns (logits [B, T, V], attention [B, T, S])."""
        feats, A = self.features(src, src_len, tgt_in)
        return self.generator(self.drop(feats)), A

    def features(self, src, src_len, tgt_in):
        """Teacher-forced decoding up to the output layer's input.

        Returns (features [B, T, l] (maxout output) or [B, T, d] (luong's h~), attention
        [B, T, S]); logits = generator(dropout(features)). The trainer applies the
        generator to the non-padding rows only.
        """
        cfg = self.cfg
        enc = self.encode(src, src_len)
        state = self.init_state(enc)
        E = self.drop(self.tgt_emb(tgt_in))  # [B, T, m]
        B, T = tgt_in.shape
        m = cfg.emb_size
        w_ih0, b_ih0, _, _ = self.decoder.weights(0)

        if cfg.variant == "encdec":
            # c is fixed: the whole input is known, so nn.GRU runs over all steps at once.
            C = enc.ctx.unsqueeze(1).expand(B, T, enc.ctx.size(-1))
            Sx, _ = self.decoder.rnn(torch.cat([E, C], dim=-1), self._rnn_state(state))
            A = enc.H.new_zeros(B, T, enc.H.size(1))
            return self.output(Sx, E, C), A

        if cfg.variant == "luong" and not cfg.input_feeding:
            Q, _ = self.decoder.rnn(E, self._rnn_state(state))  # all steps at once
            return self._luong_out(Q, enc, 0)

        # Step loop. Speed (measured, see models/README.md "Trainer"): the embedding part
        # of layer 0's input projection for all steps at once; per-step slices by unbind
        # (indexing [:, t] would make autograd build a full-size gradient per step); the
        # layer states kept as a list; the output layer after the loop.
        gi_emb = F.linear(E, w_ih0[:, :m], b_ih0).float().unbind(1)  # T x [B, 3d]
        w_rest = w_ih0[:, m:]
        products = autocast_dtype(E.device.type)
        if products is not None:  # once: autocast casts a slice (not a leaf) at every use
            w_rest = w_rest.to(products)
        hs = list(state.hidden.unbind(0))  # L_d x [B, d]
        cs = None if state.cell is None else list(state.cell.unbind(0))
        outs, ctxs, alphas = [], [], []
        if cfg.variant == "bahdanau":
            if self.training and torch.is_grad_enabled():
                # the faster forms of the scores and of H's gradient (above)
                keys2, source = 2.0 * enc.keys, SourceGradients()
                H = source.tap(enc.H)
                attend = lambda s: self.attention.forward_doubled(s, keys2, enc.mask)  # noqa: E731
                read = lambda alpha: source.context(alpha, H)  # noqa: E731
            else:
                attend = lambda s: self.attention(s, enc.keys, enc.mask)  # noqa: E731
                read = lambda alpha: context(alpha, enc.H)  # noqa: E731
            for t in range(T):
                alpha = attend(hs[-1])
                c = read(alpha)
                hs, cs = self._stack_step_pair(gi_emb[t] + F.linear(c, w_rest), hs, cs)
                outs.append(hs[-1]); ctxs.append(c); alphas.append(alpha)
            Sx, C, A = torch.stack(outs, 1), torch.stack(ctxs, 1), torch.stack(alphas, 1)
            return self.output(Sx, E, C), A

        # luong with input feeding
        feed = state.feed
        for t in range(T):
            hs, cs = self._stack_step_pair(gi_emb[t] + F.linear(feed, w_rest), hs, cs)
            ht, alpha = self._luong_out(hs[-1].unsqueeze(1), enc, t)
            feed = ht.squeeze(1)
            outs.append(feed); alphas.append(alpha.squeeze(1))
        return torch.stack(outs, 1), torch.stack(alphas, 1)

    def _stack_step_list(self, gi0, hs, cs=None):
        """_stack_step on a list of layer states (training loop): → list of L_d [B, d]
        (LSTM, cs given: → (states, cells))."""
        out, x = [], None
        cells = []
        for k in range(self.cfg.dec_layers):
            w_ih, b_ih, w_hh, b_hh = self.decoder.weights(k)
            gi = gi0 if k == 0 else F.linear(self.drop(x), w_ih, b_ih)
            if cs is None:
                x = gru_cell(gi, hs[k], w_hh, b_hh)
            else:
                x, c = lstm_cell(gi, hs[k], cs[k], w_hh, b_hh)
                cells.append(c)
            out.append(x)
        return out if cs is None else (out, cells)

    def _stack_step_pair(self, gi0, hs, cs):
        if cs is None:
            return self._stack_step_list(gi0, hs), None
        return self._stack_step_list(gi0, hs, cs)


def build_model(cfg):
    """The Seq2Seq of a config (validated), with PyTorch's default initialisation."""
    if isinstance(cfg, dict):
        cfg = ModelConfig.from_dict(cfg)
    return Seq2Seq(cfg)

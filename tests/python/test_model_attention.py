"""Attention rows: sums, windows of the local scopes (clipped at both ends), local-p's weights."""
import pytest
import torch

from conftest import VARIANTS, make_config, make_model, random_batch

LENS = [1, 2, 4, 11, 7]   # 1 and 2: windows clipped at both ends at once
T = 14                    # longer than every source: local-m's centre stops at S-1


def run(name, seed=0):
    cfg = make_config(name)
    model = make_model(name, seed)
    src, src_len, tgt = random_batch(cfg, LENS, T)
    captured = {}
    if cfg.scope == "local-p":  # the decoder states local-p predicts its position from
        captured["Q"] = []
        model.attention.W_p.register_forward_hook(lambda m, i, o: captured["Q"].append(i[0].detach()))
    with torch.no_grad():
        _, attn = model(src, src_len, tgt)
    return cfg, model, attn, captured


def window(c, D, n):
    return set(range(max(0, c - D), min(n - 1, c + D) + 1))


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_rows(name):
    cfg, _, attn, _ = run(name)
    if cfg.variant == "encdec":
        assert float(attn.abs().sum()) == 0.0  # no attention: reported as zeros
        return
    assert float(attn.min()) >= 0.0
    sums = attn.sum(-1)
    if cfg.scope == "local-p":
        assert float(attn.max()) <= 1.0 and float(sums.max()) <= 1.0 + 1e-6
    else:
        assert torch.allclose(sums, torch.ones_like(sums), atol=1e-5, rtol=0)


@pytest.mark.parametrize("name", [n for n in sorted(VARIANTS) if VARIANTS[n].get("scope") == "local-m"])
def test_local_m_window(name):
    cfg, _, attn, _ = run(name)
    D = cfg.window_d
    for b, n in enumerate(LENS):
        for t in range(T):
            support = set(torch.nonzero(attn[b, t]).flatten().tolist())
            assert support == window(min(t, n - 1), D, n), (name, n, t, support)


@pytest.mark.parametrize("name", [n for n in sorted(VARIANTS) if VARIANTS[n].get("scope") == "local-p"])
def test_local_p_window_and_weights(name):
    cfg, model, attn, cap = run(name)
    D, att = cfg.window_d, model.attention
    Q = torch.cat(cap["Q"], dim=1)  # [B, T, d]: one call for all steps, or one per step
    assert Q.shape[1] == T
    for b, n in enumerate(LENS):
        p = n * torch.sigmoid(att.v_p(torch.tanh(att.W_p(Q[b]))).squeeze(-1))  # [T]
        for t in range(T):
            c = min(int(torch.floor(p[t])), n - 1)
            win = window(c, D, n)
            support = set(torch.nonzero(attn[b, t]).flatten().tolist())
            assert support <= win, (name, n, t)
            # weights = softmax over the window times the Gaussian, not renormalised
            j = torch.tensor(sorted(win), dtype=torch.float32)
            gauss = torch.exp(-(j - p[t]) ** 2 / (2 * (D / 2) ** 2))
            soft = attn[b, t, j.long()] / gauss
            assert abs(float(soft.sum()) - 1.0) < 1e-4, (name, n, t)


@pytest.mark.parametrize("edge", ["start", "end"])
def test_local_p_clipped_at_both_ends(edge):
    """p_t pushed to 0 or to S: the window is cut at the sentence's first or last position."""
    cfg = make_config("luong_general_local-p_nofeed")
    att = make_model("luong_general_local-p_nofeed").attention
    D, B, S = cfg.window_d, len(LENS), max(LENS)
    with torch.no_grad():
        att.W_p.weight.zero_()
        att.v_p.weight.zero_()
        att.W_p.weight[0, 0] = 10.0
        att.v_p.weight[0, 0] = 50.0
        Q = torch.randn(B, 3, cfg.dec_hidden)
        Q[:, :, 0] = 1.0 if edge == "end" else -1.0  # sigmoid(±50 tanh(10)) = 1 or 0
        H = torch.randn(B, S, 2 * cfg.enc_hidden)
        src_len = torch.tensor(LENS)
        mask = torch.arange(S).unsqueeze(0) < src_len.unsqueeze(1)
        a = att(Q, H, att.keys(H), mask, src_len, 0)
    for b, n in enumerate(LENS):
        c = n - 1 if edge == "end" else 0
        for t in range(3):
            support = set(torch.nonzero(a[b, t]).flatten().tolist())
            assert support == window(c, D, n), (edge, n, support)


def test_location_uses_first_S_rows():
    """location: only the first S entries of W_loc h_t matter; later rows never do."""
    name = "luong_location_global_nofeed"
    cfg = make_config(name)
    model = make_model(name)
    src, src_len, tgt = random_batch(cfg, LENS, 5)
    with torch.no_grad():
        _, a1 = model(src, src_len, tgt)
        model.attention.W_loc.weight[max(LENS):] = 123.0
        _, a2 = model(src, src_len, tgt)
    assert torch.equal(a1, a2)

"""The output layer and its label-smoothed cross-entropy in one pass over row chunks.

F.cross_entropy(F.linear(x, W, b), y, label_smoothing=eps) writes the [N, V] logits,
their log-softmax, and in the backward pass two [N, V] gradients and their sum: with
V = 12,000 and N = 3,000 that is about 2 GB of memory traffic a step, measured at a
fifth of a CPU training step. Here each chunk of rows goes from logits to their
gradient while it is in cache; only that gradient is kept (in the products' dtype),
and the backward pass is two matrix products. The loss is the same:

    loss_i = logsumexp(z_i) - (1 - eps) z_i[y_i] - (eps / V) Σ_v z_i[v]
    ∂loss_i / ∂z_i = softmax(z_i) - (1 - eps) onehot(y_i) - eps / V

(PyTorch's label smoothing: the target is (1 - eps) onehot + eps / V.) Under bf16
autocast the products run in bf16 and the softmax, the loss and its sums in fp32.

**Sampled softmax** (training only; `training.softmax_candidates: K`). With V = 16,000
the output layer and its loss are about half a CPU training step. Over K candidates
instead of V (Jean et al. 2015, "On Using Very Large Target Vocabulary for Neural
Machine Translation"): every target id of the batch (u of them, always in) plus K - u
other ids drawn uniformly without replacement, each such negative in with probability
q = (K - u) / (V - u) (q = 1 for the batch's targets). The logits get the usual
correction z_v - log q_v, so the candidates' partition sum estimates the full one, and
the smoothing term's sum over V is estimated by Σ_C z_v / q_v:

    loss_i = logsumexp_C(z_i - log q) - (1 - eps) z_i[y_i] - (eps / V) Σ_C z_i[v] / q_v

which is the loss above exactly when C is the whole vocabulary. Dev loss, search and
exports always use the full softmax.
"""
import math

import torch
import torch.nn.functional as F

# Rows per chunk: [256, 12000] fp32 logits are 12 MB (measured against 64-1024).
CHUNK_ROWS = 256


class _LinearCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, target, eps, chunk, log_q, vocab):
        # weight and bias: the candidates' rows (all V without sampling); log_q: their
        # log inclusion probabilities (None: all 1); vocab: the full V, for eps / V
        n, v = x.size(0), weight.size(0)
        inv_q = None if log_q is None else torch.exp(-log_q)  # 1 / q, the smoothing sum's weights
        grad_z = None
        total = torch.zeros((), dtype=torch.float64, device=x.device)
        grad_b = torch.zeros(v, dtype=torch.float32, device=x.device)  # Σ_rows ∂loss/∂z, from fp32 chunks
        for s in range(0, n, chunk):
            # bf16 under autocast; F.linear casts the weight itself (a leaf), which
            # autocast does once per forward (weight.t() would be cast every chunk)
            z = F.linear(x[s:s + chunk], weight, bias)
            if grad_z is None:
                grad_z = torch.empty(n, v, dtype=z.dtype, device=x.device)
            z = z.float()
            t = target[s:s + chunk].unsqueeze(1)
            z_sum = z.sum(1) if inv_q is None else (z * inv_q).sum(1)  # not a product: autocast would make it bf16
            z_target = z.gather(1, t).squeeze(1)
            if log_q is not None:
                z.sub_(log_q)  # a target's q is 1: its logit is unchanged
            lse = torch.logsumexp(z, dim=1, keepdim=True)
            loss = lse.squeeze(1) - (1.0 - eps) * z_target - (eps / vocab) * z_sum
            total += loss.sum(dtype=torch.float64)
            p = z.sub_(lse).exp_()  # softmax, in place of the logits
            if eps:
                p.sub_(eps / vocab if inv_q is None else (eps / vocab) * inv_q)
            p.scatter_add_(1, t, torch.full_like(t, eps - 1.0, dtype=p.dtype))
            grad_b += p.sum(0)
            grad_z[s:s + chunk] = p
        ctx.save_for_backward(x, weight, grad_z, grad_b)
        return total.float()

    @staticmethod
    def backward(ctx, grad_loss):
        x, weight, grad_z, grad_b = ctx.saved_tensors
        g = grad_z.dtype
        grad_x = (grad_z @ weight.to(g)).to(x.dtype) * grad_loss
        grad_w = (grad_z.t() @ x.to(g)).to(weight.dtype) * grad_loss
        return grad_x, grad_w, grad_b.to(weight.dtype) * grad_loss, None, None, None, None, None


def linear_cross_entropy(x, weight, bias, target, label_smoothing=0.0, chunk=CHUNK_ROWS, candidates=None):
    """Σ_i cross_entropy(x_i Wᵀ + b, target_i) with label smoothing, as F.cross_entropy's
    reduction="sum": x [N, l], weight [V, l], bias [V], target [N] (no ignored entries).
    candidates: (ids, log_q, target) from sample_candidates: the sampled softmax over
    those rows of weight and bias, target given as positions in ids."""
    if x.size(0) == 0:
        return x.new_zeros((), dtype=torch.float32) + 0.0 * weight.sum()
    vocab = weight.size(0)
    log_q = None
    if candidates is not None:
        ids, log_q, target = candidates
        weight, bias = weight[ids], bias[ids]  # their gradients scatter back into [V, l] and [V]
    return _LinearCrossEntropy.apply(x, weight, bias, target, float(label_smoothing), int(chunk), log_q, vocab)


def sample_candidates(target, vocab, k, generator):
    """The sampled softmax's candidates for one batch: (ids [C], log_q [C], target as
    positions in ids [N]). ids: the batch's distinct target ids, then K - u others drawn
    uniformly without replacement by `generator` (a CPU torch.Generator; the trainer seeds
    one per step, so a resumed run draws the same ones); C = max(K, u), at most V. log_q:
    0 for the batch's targets, log((K - u) / (V - u)) for the drawn ones (None when
    none are drawn)."""
    device = target.device
    present = torch.unique(target.cpu())                   # sorted
    u = present.numel()
    extra = max(0, min(k, vocab) - u)
    mask = torch.ones(vocab, dtype=torch.bool)
    mask[present] = False
    others = mask.nonzero().squeeze(1)
    drawn = others[torch.randperm(others.numel(), generator=generator)[:extra]]
    ids = torch.cat([present, drawn])
    log_q = None  # nothing drawn: the plain softmax over the batch's targets
    if extra:
        log_q = torch.zeros(ids.numel(), dtype=torch.float32)
        log_q[u:] = math.log(extra / (vocab - u))
        log_q = log_q.to(device)
    position = torch.full((vocab,), -1, dtype=torch.long)
    position[ids] = torch.arange(ids.numel())
    return ids.to(device), log_q, position.to(device)[target]

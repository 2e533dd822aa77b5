// One decoder step for every alive hypothesis: attention, GRU stack, output
// features; then the output layer over all of them at once.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "translator_impl.hpp"

namespace softalign::internal {

// GRU stack: layer 0 reads x0, layer k > 0 the new state of layer k − 1.
void TranslatorImpl::gru_stack(const float* x0, const float* state_in, float* state_out) {
  const float* x = x0;
  for (int layer = 0; layer < c->dec_layers; ++layer) {
    const GruWeights& g = m->w.dec[layer];
    const float* h = state_in + static_cast<std::size_t>(layer) * d_;
    float* h_out = state_out + static_cast<std::size_t>(layer) * d_;
    kernels::matvec(*k, g.w_ih, x, g.b_ih, gi_, xq_);
    kernels::matvec(*k, g.w_hh, h, g.b_hh, gh_, xq_);
    k->gru_cell(gi_, gh_, h, d_, h_out);
    x = h_out;
  }
}

// Bahdanau: e_j = v_aᵀ tanh(W_a s + U_a h_j + b_a), α = softmax, c = Σ α_j h_j.
void TranslatorImpl::attend_bahdanau(const float* query_state, int s, float* att, float* ctx) {
  kernels::matvec(*k, m->w.att_W_a, query_state, nullptr, q_, xq_);
  k->additive_scores(q_, keys_buf_, m->w.att_v_a, s, a_, att);
  k->softmax(att, s);
  k->weighted_sum(att, ann_, s, 2 * n_, ctx);
}

// Luong: scores over the scope's window, softmax there (local-p: times the
// Gaussian, not renormalised), zeros outside; c = Σ a_j h_j.
void TranslatorImpl::attend_luong(const float* h, int t, int s, float* att, float* ctx) {
  const Weights& w = m->w;
  int lo = 0, hi = s - 1;
  double p = 0.0;
  if (c->scope == Scope::kLocalM || c->scope == Scope::kLocalP) {
    int centre;
    if (c->scope == Scope::kLocalM) {
      centre = std::min(t, s - 1);
    } else {
      kernels::matvec(*k, w.att_W_p, h, nullptr, q_, xq_);
      float z = 0.0f;
      for (int i = 0; i < a_; ++i) z += w.att_v_p[i] * std::tanh(q_[i]);
      const float sig = 1.0f / (1.0f + std::exp(-z));
      p = static_cast<double>(static_cast<float>(s) * sig);
      centre = std::min(static_cast<int>(std::floor(p)), s - 1);
    }
    lo = std::max(centre - c->window_d, 0);
    hi = std::min(centre + c->window_d, s - 1);
  }
  const int count = hi - lo + 1;
  float* sc = att + lo;
  switch (c->score) {
    case Score::kDot: k->dot_scores(h, ann_ + static_cast<std::size_t>(lo) * 2 * n_, count, 2 * n_, sc); break;
    case Score::kGeneral: k->dot_scores(h, keys_buf_ + static_cast<std::size_t>(lo) * d_, count, d_, sc); break;
    case Score::kConcat:
      kernels::matvec(*k, w.att_W_q, h, nullptr, q_, xq_);
      k->additive_scores(q_, keys_buf_ + static_cast<std::size_t>(lo) * a_, w.att_v_a, count, a_, sc);
      break;
    case Score::kLocation:
      kernels::matvec(*k, w.att_W_loc.slice_rows(0, s), h, nullptr, sc, xq_);
      break;
    case Score::kNone: break;
  }
  k->softmax(sc, count);
  if (c->scope == Scope::kLocalP) {
    const float sigma = static_cast<float>(c->window_d) / 2.0f;
    const float pf = static_cast<float>(p);
    for (int j = lo; j <= hi; ++j) {
      const float dj = static_cast<float>(j) - pf;
      att[j] *= std::exp(-(dj * dj) / (2.0f * sigma * sigma));
    }
  }
  for (int j = 0; j < lo; ++j) att[j] = 0.0f;
  for (int j = hi + 1; j < s; ++j) att[j] = 0.0f;
  k->weighted_sum(sc, ann_ + static_cast<std::size_t>(lo) * 2 * n_, count, 2 * n_, ctx);
}

void TranslatorImpl::step(int count, const int32_t* tokens, int t, int s, float* logits) {
  const Weights& w = m->w;
  const bool luong = c->variant == Variant::kLuong;
  const int top = (c->dec_layers - 1) * d_;
  for (int i = 0; i < count; ++i) {
    const float* st_in = state_cur_ + static_cast<std::size_t>(i) * state_size_;
    float* st_out = state_next_ + static_cast<std::size_t>(i) * state_size_;
    float* att = att_step_ + static_cast<std::size_t>(i) * S;
    float* row = gen_in_buf_ + static_cast<std::size_t>(i) * gen_in_;
    kernels::get_row(*k, w.tgt_emb, tokens[i], emb_);
    if (!luong) {
      const float* ctx = fixed_ctx_;
      if (c->variant == Variant::kBahdanau) {
        attend_bahdanau(st_in + top, s, att, ctx_);
        ctx = ctx_;
      } else {
        std::memset(att, 0, sizeof(float) * s);
      }
      std::memcpy(x_, emb_, sizeof(float) * e_);
      std::memcpy(x_ + e_, ctx, sizeof(float) * 2 * n_);
      gru_stack(x_, st_in, st_out);
      // u = U_o s + b_o + V_o E_y y + C_o c; t = maxout_2(u)
      kernels::matvec(*k, w.out_U_o, st_out + top, w.out_U_o_b, u_, xq_);
      kernels::matvec(*k, w.out_V_o, emb_, nullptr, u2_, xq_);
      for (int j = 0; j < 2 * l_; ++j) u_[j] += u2_[j];
      kernels::matvec(*k, w.out_C_o, ctx, nullptr, u2_, xq_);
      for (int j = 0; j < 2 * l_; ++j) u_[j] += u2_[j];
      k->maxout2(u_, l_, row);
    } else {
      const float* x0 = emb_;
      if (c->input_feeding) {
        std::memcpy(x_, emb_, sizeof(float) * e_);
        std::memcpy(x_ + e_, st_in + c->dec_layers * d_, sizeof(float) * d_);
        x0 = x_;
      }
      gru_stack(x0, st_in, st_out);
      const float* h = st_out + top;
      attend_luong(h, t, s, att, ctx_);
      // h̃ = tanh(W_c [c; h])
      std::memcpy(cat_, ctx_, sizeof(float) * 2 * n_);
      std::memcpy(cat_ + 2 * n_, h, sizeof(float) * d_);
      kernels::matvec(*k, w.dec_W_c, cat_, nullptr, row, xq_);
      for (int j = 0; j < d_; ++j) row[j] = std::tanh(row[j]);
      if (c->input_feeding) std::memcpy(st_out + c->dec_layers * d_, row, sizeof(float) * d_);
    }
  }
  if (shortlist_.active())
    shortlist_.output_layer(*k, gen_in_buf_, count, logits, xq_, xs_, pool);
  else
    generator_.run(*k, gen_in_buf_, count, logits, xq_, xs_, pool);
}

}  // namespace softalign::internal

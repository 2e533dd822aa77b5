// The CPU engine's frame: its buffers, the vocabulary, and the step the
// search sees (the decoder itself is in encoder.cpp and decoder.cpp).
#include "backends/cpu/cpu_engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>


namespace softalign::internal {

CpuEngine::CpuEngine(const Plan& plan, const ShortlistTable& shortlist, std::unique_ptr<const CpuWeights> weights,
                     const kernels::KernelTable& kernels, pthreadpool* pool, const EngineLimits& limits)
    : plan_(plan),
      shapes_(plan.shapes),
      src_emb_(*plan.find(EncoderOp::kEmbed)->matrix),
      output_(*plan.find(StepOp::kOutput)),
      cw_(std::move(weights)),
      k_(kernels),
      pool_(pool),
      S_(limits.max_source),
      K_(limits.max_rows),
      B_(limits.max_sentences),
      table_(shortlist),
      shortlist_room_(limits.shortlist && table_.present()) {
  n_ = shapes_.enc_hidden;
  d_ = shapes_.dec_hidden;
  e_ = shapes_.emb;
  a_ = shapes_.att_hidden;
  l_ = shapes_.maxout;
  V_ = shapes_.vocab;
  state_size_ = shapes_.state_size;
  gen_in_ = shapes_.output_in;
  key_dim_ = shapes_.key_dim;
  A_ = shapes_.ann;
  g_ = shapes_.gates;
  lstm_ = shapes_.cell == Cell::kLstm;
}

void CpuEngine::layout(Arena& a) {
  // Row buffers hold the rows of every sentence of a batch.
  const std::size_t s = S_, kk = static_cast<std::size_t>(K_) * B_, b = B_;
  const std::size_t wide = std::max({e_, A_, d_});
  const std::size_t enc_in = std::max(e_, A_);
  const std::size_t finals = static_cast<std::size_t>(shapes_.enc_layers) * A_;
  enc_a_ = a.take<float>(s * enc_in);
  enc_b_ = a.take<float>(s * enc_in);
  gi_f_ = a.take<float>(s * g_ * n_);
  gi_b_ = a.take<float>(s * g_ * n_);
  gh_ = a.take<float>(g_ * std::max(n_, d_));
  h_ = a.take<float>(std::max(n_, d_));
  c_ = a.take<float>(std::max(n_, d_));
  if (B_ > 1) {
    enc_x_ = a.take<float>(b * enc_in);
    enc_gi_ = a.take<float>(b * g_ * n_);
    enc_gh_ = a.take<float>(b * g_ * n_);
    enc_hq_ = a.take<float>(b * n_);
    enc_h_ = a.take<float>(b * n_);
    enc_c_ = a.take<float>(b * n_);
    enc_rows_ = a.take<int32_t>(b);
    enc_pos_ = a.take<int32_t>(b);
    if (shapes_.enc_layers > 1) enc_all_ = a.take<float>(b * s * A_);
  }
  ann_all_ = a.take<float>(b * s * A_);
  keys_all_ = a.take<float>(b * s * std::max(key_dim_, 1));
  finals_all_ = a.take<float>(b * finals);
  final_cells_all_ = a.take<float>(b * finals);
  enc_len_ = a.take<int32_t>(b);
  src_len_ = a.take<int32_t>(b);
  row_sent_ = a.take<int32_t>(kk);
  const std::size_t linear_in = std::max(s * enc_in, kk * gen_in_);
  const std::size_t step_in = kk * (e_ + 2 * wide + std::max(2 * l_, 1));
  xq_ = a.take<int8_t>(std::max({e_ + 2 * wide + std::max(l_, 1), linear_in, step_in, finals}));
  xs_ = a.take<float>(std::max(s, kk));
  state_cur_ = a.take<float>(kk * state_size_);
  state_next_ = a.take<float>(kk * state_size_);
  q_ = a.take<float>(std::max({a_, d_, 1}));
  emb_all_ = a.take<float>(kk * e_);
  x_all_ = a.take<float>(kk * (e_ + wide));
  gi_all_ = a.take<float>(kk * g_ * d_);
  gh_all_ = a.take<float>(kk * g_ * d_);
  hq_ = a.take<float>(kk * d_);
  hq2_ = a.take<float>(kk * d_);
  q_all_ = a.take<float>(kk * std::max(a_, 1));
  ctx_all_ = a.take<float>(kk * A_);
  u_all_ = a.take<float>(kk * std::max(2 * l_, 1));
  u2_all_ = a.take<float>(kk * std::max(2 * l_, 1));
  cat_ = a.take<float>(kk * (A_ + d_));
  gen_in_buf_ = a.take<float>(kk * gen_in_);
  logits_ = a.take<float>(kk * V_);
  vocab_.layout(a, shortlist_room_, V_, B_);
  packed_.layout(a, shortlist_room_, *output_.matrix, output_.bias, B_);
  att_step_ = a.take<float>(kk * s);
}

void CpuEngine::select_vocab(bool use, const int32_t* const* srcs, const int* lens, int n) {
  vocab_.select(table_, use, srcs, lens, n, shapes_.eos_id);
  packed_.pack(vocab_, n, k_.i8_lanes_min_inputs > 0);
}

int CpuEngine::use_sentence(int b) {
  const std::size_t s = S_, finals = static_cast<std::size_t>(shapes_.enc_layers) * A_;
  ann_ = ann_all_ + b * s * A_;
  keys_buf_ = keys_all_ + b * s * std::max(key_dim_, 1);
  finals_ = finals_all_ + b * finals;
  final_cells_ = final_cells_all_ + b * finals;
  fixed_ctx_ = finals_ + finals - A_;
  return src_len_[b];
}

SourceMemory CpuEngine::memory(int b) const {
  const std::size_t s = S_;
  return {ann_all_ + b * s * A_, keys_all_ + b * s * std::max(key_dim_, 1), src_len_[b]};
}

bool CpuEngine::log_probs(const StepGroups& groups, const int32_t* tokens, int t) {
  int rows = 0;
  for (int g = 0; g < groups.count; ++g)
    for (int r = 0; r < groups.rows[g]; ++r) row_sent_[rows++] = groups.sentence[g];
  decode(rows, tokens, t, logits_);
  // Each group's block: its rows × its sentence's vocabulary.
  std::size_t offset = 0;
  for (int g = 0; g < groups.count; ++g) {
    const int width = vocab_.width(groups.sentence[g]);
    for (int i = 0; i < groups.rows[g]; ++i, offset += width) k_.log_softmax(logits_ + offset, width, logits_ + offset);
  }
  return !nonfinite_;
}

void CpuEngine::reorder(const int32_t* parents, int n) {
  for (int i = 0; i < n; ++i)
    std::memcpy(state_cur_ + static_cast<std::size_t>(i) * state_size_,
                state_next_ + static_cast<std::size_t>(parents[i]) * state_size_, sizeof(float) * state_size_);
}

bool CpuEngine::force_step(int32_t token, int t, float* logits) {
  row_sent_[0] = 0;
  decode(1, &token, t, logits);
  std::memcpy(state_cur_, state_next_, sizeof(float) * state_size_);
  return !nonfinite_;
}

}  // namespace softalign::internal

// One decoder step for every alive hypothesis: attention, GRU or LSTM stack, output
// features; then the output layer over all of them at once.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/cpu/attention.hpp"
#include "backends/cpu/cpu_engine.hpp"

namespace softalign::internal {

// Y[i] = W X[i] (+ bias) for `count` rows of X (row stride W.cols), each
// weight row read once for all of them. The same numbers as one matvec per
// row: the same per-row quantization and the same accumulation order.
void CpuEngine::rows_product(const kernels::Matrix& w, const float* x, int count, const float* bias, float* y) {
  if (w.type == WeightType::kI8)
    for (int r = 0; r < count; ++r)
      xs_[r] = k_.quantize_i8(x + static_cast<std::size_t>(r) * w.cols, w.cols, xq_ + static_cast<std::size_t>(r) * w.cols);
  kernels::matmat(k_, w, x, xq_, xs_, count, bias, y, w.rows);
}

// Row `layer` block of each hypothesis' state, gathered contiguously into dst.
static void gather(const float* state, int count, int state_size, int offset, int width, float* dst) {
  for (int i = 0; i < count; ++i)
    std::memcpy(dst + static_cast<std::size_t>(i) * width, state + static_cast<std::size_t>(i) * state_size + offset,
                sizeof(float) * width);
}

// Decoder layer op.layer for `count` rows: layer 0 reads x (x_all_, or the
// embeddings alone: op.rnn_input), layer k > 0 the new states of layer k − 1;
// state_cur_ rows in, state_next_ rows out (with LSTM, the layer's cell too).
void CpuEngine::rnn_layer(const StepOperation& op, int count) {
  const int layer = op.layer;
  const RnnWeights& g = *op.rnn;
  const float* x = op.rnn_input == RnnInput::kRow ? x_all_ : emb_all_;
  if (layer > 0) {
    gather(state_next_, count, state_size_, (layer - 1) * d_, d_, hq_);
    x = hq_;
  }
  rows_product(g.w_ih, x, count, g.b_ih, gi_all_);
  gather(state_cur_, count, state_size_, layer * d_, d_, hq2_);
  rows_product(g.w_hh, hq2_, count, g.b_hh, gh_all_);
  const std::size_t cell_at = static_cast<std::size_t>(shapes_.cell_offset) + layer * d_;
  for (int i = 0; i < count; ++i) {
    float* row = state_next_ + static_cast<std::size_t>(i) * state_size_;
    if (lstm_)  // the cell: the row's previous one in, its new one out
      std::memcpy(row + cell_at, state_cur_ + static_cast<std::size_t>(i) * state_size_ + cell_at, sizeof(float) * d_);
    cell_step(gi_all_ + static_cast<std::size_t>(i) * g_ * d_, gh_all_ + static_cast<std::size_t>(i) * g_ * d_,
              hq2_ + static_cast<std::size_t>(i) * d_, row + cell_at, d_, row + layer * d_);
  }
}

// The step's operations (ops.hpp) in order. The products with decoder
// matrices run over all rows at once (rows_product); attention and the cells
// per row.
void CpuEngine::decode(int count, const int32_t* tokens, int t, float* logits) {
  for (const StepOperation& op : plan_.step) run_step_op(op, count, tokens, t, logits);
}

void CpuEngine::run_step_op(const StepOperation& op, int count, const int32_t* tokens, int t, float* logits) {
  const int top = (shapes_.dec_layers - 1) * d_;
  const std::size_t ann = static_cast<std::size_t>(A_);  // the annotations' width
  switch (op.op) {
    case StepOp::kInput:
      for (int i = 0; i < count; ++i)
        kernels::get_row(k_, *op.matrix, tokens[i], emb_all_ + static_cast<std::size_t>(i) * e_);
      if (op.zero_attention)
        for (int i = 0; i < count; ++i) {
          std::memset(att_step_ + static_cast<std::size_t>(i) * S_, 0, sizeof(float) * use_sentence(row_sent_[i]));
          zero_skipped_eos(i);
        }
      if (op.fed == FedInput::kFixedContext) {
        for (int i = 0; i < count; ++i) {
          use_sentence(row_sent_[i]);
          std::memcpy(ctx_all_ + i * ann, fixed_ctx_, sizeof(float) * ann);
        }
        fill_x(count, ctx_all_, ann, ann);
      } else if (op.fed == FedInput::kAttentional) {  // h~_{t-1}, after the layers' states
        fill_x(count, state_cur_ + shapes_.fed_offset, state_size_, d_);
      }
      break;
    case StepOp::kQuery:
      gather(state_cur_, count, state_size_, top, d_, hq_);
      rows_product(*op.matrix, hq_, count, nullptr, q_all_);
      break;
    case StepOp::kAttendAdditive:
      for (int i = 0; i < count; ++i) {
        attend_additive(k_, op, shapes_, q_all_ + static_cast<std::size_t>(i) * a_, memory(row_sent_[i]),
                        att_step_ + static_cast<std::size_t>(i) * S_, ctx_all_ + i * ann);
        zero_skipped_eos(i);
      }
      fill_x(count, ctx_all_, ann, ann);
      break;
    case StepOp::kRnn:
      rnn_layer(op, count);
      break;
    case StepOp::kAttendWithState: {
      const std::size_t cat = ann + d_;
      for (int i = 0; i < count; ++i) {
        const float* h = state_next_ + static_cast<std::size_t>(i) * state_size_ + top;
        float* row = cat_ + i * cat;  // [c ; h]
        // A damaged model's NaN position: the step's fault (the search reports it).
        if (!attend_with_state(k_, op, shapes_, h, t, memory(row_sent_[i]), {q_, xq_},
                               att_step_ + static_cast<std::size_t>(i) * S_, row))
          nonfinite_ = true;
        std::memcpy(row + ann, h, sizeof(float) * d_);
        zero_skipped_eos(i);
      }
      break;
    }
    case StepOp::kCombine:
      for (int i = 0; i < count; ++i) {
        float* row = gen_in_buf_ + static_cast<std::size_t>(i) * gen_in_;
        kernels::matvec(k_, *op.matrix, cat_ + i * (ann + d_), op.bias, row, xq_);
        if (op.tanh)
          for (int j = 0; j < d_; ++j) row[j] = std::tanh(row[j]);
        if (op.feed_back)
          std::memcpy(state_next_ + static_cast<std::size_t>(i) * state_size_ + shapes_.fed_offset, row,
                      sizeof(float) * d_);
      }
      break;
    case StepOp::kMaxout: {
      // u = U_o s + b_o + V_o E_y y + C_o c; t = maxout_2(u)
      const std::size_t l2 = 2 * static_cast<std::size_t>(l_);
      gather(state_next_, count, state_size_, top, d_, hq_);
      rows_product(*op.from_state, hq_, count, op.bias, u_all_);
      rows_product(*op.from_embedding, emb_all_, count, nullptr, u2_all_);
      for (std::size_t j = 0; j < count * l2; ++j) u_all_[j] += u2_all_[j];
      rows_product(*op.from_context, ctx_all_, count, nullptr, u2_all_);
      for (std::size_t j = 0; j < count * l2; ++j) u_all_[j] += u2_all_[j];
      for (int i = 0; i < count; ++i) k_.maxout2(u_all_ + i * l2, l_, gen_in_buf_ + static_cast<std::size_t>(i) * gen_in_);
      break;
    }
    case StepOp::kOutput:
      output_layer(count, logits);
      break;
  }
}

// Row i's weight at its source's EOS position, which the encoder skipped
// (PlanShapes::skip_source_eos): 0. Rows move between sentences as they
// finish, so it is written every step.
void CpuEngine::zero_skipped_eos(int row) {
  if (!shapes_.skip_source_eos) return;
  const int eos_at = enc_len_[row_sent_[row]];  // 0: an empty source, whose one position is attended
  if (eos_at >= 1) att_step_[static_cast<std::size_t>(row) * S_ + eos_at] = 0.0f;
}

// x_all_ rows = [E y ; fed row i] (fed: rows of `width` floats, `stride` apart).
void CpuEngine::fill_x(int count, const float* fed, std::size_t stride, std::size_t width) {
  const std::size_t in = static_cast<std::size_t>(e_) + width;
  for (int i = 0; i < count; ++i) {
    std::memcpy(x_all_ + i * in, emb_all_ + static_cast<std::size_t>(i) * e_, sizeof(float) * e_);
    std::memcpy(x_all_ + i * in + e_, fed + i * stride, sizeof(float) * width);
  }
}

void CpuEngine::output_layer(int count, float* logits) {
  if (!vocab_.active()) {
    cw_->generator.run(k_, gen_in_buf_, count, logits, xq_, xs_, pool_);
    return;
  }
  if (packed_.use_union(k_, vocab_, count, row_sent_)) {
    packed_.union_output_layer(k_, vocab_, count, row_sent_, gen_in_buf_, logits, xq_, xs_, pool_);
    return;
  }
  std::size_t offset = 0;
  for (int first = 0; first < count;) {
    const int b = row_sent_[first];
    int rows = 1;
    while (first + rows < count && row_sent_[first + rows] == b) ++rows;
    const int width = vocab_.width(b);
    packed_.output_layer(k_, vocab_, cw_->generator, b, gen_in_buf_ + static_cast<std::size_t>(first) * gen_in_, rows,
                            logits + offset, xq_, xs_, pool_);
    offset += static_cast<std::size_t>(rows) * width;
    first += rows;
  }
}

}  // namespace softalign::internal

#include "backends/cpu/attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace softalign::internal {

void attend_additive(const kernels::KernelTable& k, const StepOperation& op, const PlanShapes& shapes, const float* q,
                     const SourceMemory& src, float* att, float* ctx) {
  k.additive_scores(q, src.keys, op.vector, src.length, shapes.att_hidden, att);
  k.softmax(att, src.length);
  k.weighted_sum(att, src.annotations, src.length, shapes.ann, ctx);
}

bool attend_with_state(const kernels::KernelTable& k, const StepOperation& op, const PlanShapes& shapes,
                       const float* h, int t, const SourceMemory& src, const AttentionScratch& scratch, float* att,
                       float* ctx) {
  const int s = src.length, ann = shapes.ann, key_dim = shapes.key_dim;
  bool finite = true;
  int lo = 0, hi = s - 1;
  double p = 0.0;
  if (op.window != Window::kAll) {
    int centre;
    if (op.window == Window::kAtStep) {
      centre = std::min(t, s - 1);
    } else {
      kernels::matvec(k, *op.position, h, nullptr, scratch.query, scratch.xq);
      float z = 0.0f;
      for (int i = 0; i < shapes.att_hidden; ++i) z += op.position_vector[i] * std::tanh(scratch.query[i]);
      const float sig = 1.0f / (1.0f + std::exp(-z));
      p = static_cast<double>(static_cast<float>(s) * sig);
      // Damaged weights (a NaN in W_p, v_p or their scales) give a NaN
      // position: never an index.
      if (!(p >= 0.0 && p <= static_cast<double>(s))) {
        finite = false;
        p = 0.0;
      }
      centre = std::min(static_cast<int>(std::floor(p)), s - 1);
    }
    lo = std::max(centre - op.window_d, 0);
    hi = std::min(centre + op.window_d, s - 1);
  }
  const int count = hi - lo + 1;
  float* sc = att + lo;
  switch (op.scores) {
    case Scores::kDot:
      k.dot_scores(h, src.annotations + static_cast<std::size_t>(lo) * ann, count, ann, sc);
      break;
    case Scores::kDotKeys:
      k.dot_scores(h, src.keys + static_cast<std::size_t>(lo) * key_dim, count, key_dim, sc);
      break;
    case Scores::kAdditive:
      kernels::matvec(k, *op.matrix, h, op.bias, scratch.query, scratch.xq);
      k.additive_scores(scratch.query, src.keys + static_cast<std::size_t>(lo) * key_dim, op.vector, count, key_dim,
                        sc);
      break;
    case Scores::kPosition:
      kernels::matvec(k, op.matrix->slice_rows(0, s), h, nullptr, sc, scratch.xq);
      break;
  }
  k.softmax(sc, count);
  if (op.window == Window::kPredicted) {
    const float sigma = static_cast<float>(op.window_d) / 2.0f;
    const float pf = static_cast<float>(p);
    for (int j = lo; j <= hi; ++j) {
      const float dj = static_cast<float>(j) - pf;
      att[j] *= std::exp(-(dj * dj) / (2.0f * sigma * sigma));
    }
  }
  for (int j = 0; j < lo; ++j) att[j] = 0.0f;
  for (int j = hi + 1; j < s; ++j) att[j] = 0.0f;
  k.weighted_sum(sc, src.annotations + static_cast<std::size_t>(lo) * ann, count, ann, ctx);
  return finite;
}

}  // namespace softalign::internal

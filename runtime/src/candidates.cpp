#include "candidates.hpp"

#include <cmath>

namespace softalign::internal {

bool pick_candidates(const kernels::KernelTable& k, float* rows, const Shortlist& vocab, int vocab_size,
                     const StepGroups& groups, const float* row_logp, int stride, int32_t* idx, float* val,
                     int32_t* got) {
  bool finite = true;
  float* block = rows;
  for (int g = 0, first = 0; g < groups.count; first += groups.rows[g], ++g) {
    const int b = groups.sentence[g], width = vocab.width(b);
    const std::size_t size = static_cast<std::size_t>(groups.rows[g]) * width;
    for (int i = 0; i < groups.rows[g]; ++i) {
      float* row = block + static_cast<std::size_t>(i) * width;
      for (int v = 0; v < width; ++v) row[v] += row_logp[first + i];
    }
    // The sentence's best over its own rows. Flattened index i * width + v:
    // ties go to the lower row, then the lower column, whose order is the ids'.
    int32_t* gi = idx + static_cast<std::size_t>(g) * stride;
    float* gv = val + static_cast<std::size_t>(g) * stride;
    if (groups.forced != nullptr) {  // a target prefix: one row, the whole vocabulary
      gi[0] = groups.forced[g];
      gv[0] = block[groups.forced[g]];
      got[g] = 1;
    } else {
      got[g] = k.topk(block, size, groups.want[g], gi, gv);
      const int32_t* ids = vocab.ids(b);
      for (int j = 0; j < got[g]; ++j) {
        const int row = gi[j] / width, column = gi[j] % width;
        gi[j] = row * vocab_size + (ids ? ids[column] : column);
      }
    }
    if (got[g] < 1) finite = false;
    for (int j = 0; j < got[g]; ++j)
      if (!std::isfinite(gv[j])) finite = false;
    block += size;
  }
  return finite;
}

}  // namespace softalign::internal

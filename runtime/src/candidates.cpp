#include "candidates.hpp"

#include <cmath>

namespace softalign::internal {

bool pick_candidates(const kernels::KernelTable& k, float* rows, int width, const StepGroups& groups,
                     const float* row_logp, int stride, int32_t* idx, float* val, int32_t* got) {
  int count = 0;
  for (int g = 0; g < groups.count; ++g) count += groups.rows[g];
  for (int i = 0; i < count; ++i) {
    float* row = rows + static_cast<std::size_t>(i) * width;
    for (int v = 0; v < width; ++v) row[v] += row_logp[i];
  }
  // Each sentence's best over its own rows. Flattened index i * width + v:
  // ties go to the lower row, then the lower column.
  bool finite = true;
  for (int g = 0, first = 0; g < groups.count; first += groups.rows[g], ++g) {
    int32_t* gi = idx + static_cast<std::size_t>(g) * stride;
    float* gv = val + static_cast<std::size_t>(g) * stride;
    const float* group_rows = rows + static_cast<std::size_t>(first) * width;
    if (groups.forced != nullptr) {
      gi[0] = groups.forced[g];
      gv[0] = group_rows[groups.forced[g]];
      got[g] = 1;
    } else {
      got[g] = k.topk(group_rows, static_cast<std::size_t>(groups.rows[g]) * width, groups.want[g], gi, gv);
    }
    if (got[g] < 1) finite = false;
    for (int j = 0; j < got[g]; ++j)
      if (!std::isfinite(gv[j])) finite = false;
  }
  return finite;
}

}  // namespace softalign::internal

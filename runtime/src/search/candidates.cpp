#include "search/candidates.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace softalign::internal {

bool pick_candidates(const kernels::KernelTable& k, float* rows, const SentenceVocabularies& vocab, int vocab_size,
                     const StepGroups& groups, const float* row_logp, int stride, int32_t* idx, float* val,
                     int32_t* got) {
  bool finite = true;
  float* block = rows;
  for (int g = 0, first = 0; g < groups.count; first += groups.rows[g], ++g) {
    const int b = groups.sentence[g], width = vocab.width(b);
    const std::size_t size = static_cast<std::size_t>(groups.rows[g]) * width;
    const int32_t* ids = vocab.ids(b);
    for (int i = 0; i < groups.rows[g]; ++i) {
      float* row = block + static_cast<std::size_t>(i) * width;
      for (int v = 0; v < width; ++v) row[v] += row_logp[first + i];
      if (groups.banned == nullptr) continue;
      const int32_t* banned = groups.banned + static_cast<std::size_t>(first + i) * groups.banned_per_row;
      for (int j = 0; j < groups.banned_per_row; ++j) {
        if (banned[j] < 0) continue;
        int column = banned[j];  // the id's column: itself, or its place in the sorted shortlist
        if (ids != nullptr) {
          const int32_t* at = std::lower_bound(ids, ids + width, banned[j]);
          column = at != ids + width && *at == banned[j] ? static_cast<int>(at - ids) : -1;
        }
        if (column >= 0 && column < width) row[column] = -std::numeric_limits<float>::infinity();
      }
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
      for (int j = 0; j < got[g]; ++j) {
        const int row = gi[j] / width, column = gi[j] % width;
        gi[j] = row * vocab_size + (ids ? ids[column] : column);
      }
    }
    if (got[g] < 1) finite = false;
    for (int j = 0; j < got[g]; ++j)
      if (!std::isfinite(gv[j]) && !(groups.minus_inf_ok && gv[j] < 0 && std::isinf(gv[j]))) finite = false;
    block += size;
  }
  return finite;
}

bool merge_row_candidates(const RowCandidates& rows, const StepGroups& groups, const float* row_logp, int vocab_size,
                          int stride, int32_t* heads, int32_t* idx, float* val, int32_t* got) {
  bool finite = true;
  for (int g = 0, first = 0; g < groups.count; first += groups.rows[g], ++g) {
    const int want = groups.want[g], nrows = groups.rows[g];
    int32_t* gi = idx + static_cast<std::size_t>(g) * stride;
    float* gv = val + static_cast<std::size_t>(g) * stride;
    for (int r = 0; r < nrows; ++r) heads[r] = 0;
    int count = 0;
    while (count < want) {
      int best_row = -1;
      float best = 0.0f;
      for (int r = 0; r < nrows; ++r) {
        if (heads[r] >= want) continue;
        const std::size_t at = static_cast<std::size_t>(first + r) * rows.stride + heads[r];
        if (rows.columns[at] < 0) continue;
        const float v = row_logp[first + r] + rows.log_probs[at];
        if (best_row < 0 || v > best) {  // rows in order: an equal value keeps the lower row
          best_row = r;
          best = v;
        }
      }
      if (best_row < 0) break;
      const std::size_t at = static_cast<std::size_t>(first + best_row) * rows.stride + heads[best_row]++;
      const int32_t column = rows.columns[at];
      const int32_t id = rows.ids != nullptr ? static_cast<int32_t>(rows.ids[column]) : column;
      gi[count] = best_row * vocab_size + id;
      gv[count] = best;
      if (!std::isfinite(best)) finite = false;
      ++count;
    }
    got[g] = count;
    if (count < 1) finite = false;
  }
  return finite;
}

}  // namespace softalign::internal

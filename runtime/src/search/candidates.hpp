// A step's candidates, the search's one rule for them: from the step's
// log-probability rows (each row's running log-probability added to its row,
// then each group of rows, StepGroups, takes its best candidates or its
// forced one), or from each row's own best candidates where the engine chose
// those (Engine::row_candidates: a merge). Either way, for each group g, its
// best candidates over its sentence's vocabulary, best first (ties: the lower
// row, then the lower id), at idx/val + g * stride: flattened indices
// local_row * vocab_size + token id and their totals (row_logp + the row's
// log-softmax); got[g] is how many.
#pragma once

#include <cstdint>

#include "backends/engine.hpp"
#include "backends/shortlist.hpp"
#include "kernels/kernels.hpp"

namespace softalign::internal {

// `rows`: the step's rows of log-softmax values, one block per group (its
// rows × its sentence's vocabulary: vocab.width(b) columns, column i the id
// vocab.ids(b)[i]); row r becomes row_logp[r] + rows[r]. Honours
// groups.forced and groups.banned. Returns false when a kept score is not
// finite.
bool pick_candidates(const kernels::KernelTable& k, float* rows, const SentenceVocabularies& vocab, int vocab_size,
                     const StepGroups& groups, const float* row_logp, int stride, int32_t* idx, float* val,
                     int32_t* got);

// The same from each row's own sorted candidates (no forced or banned ids):
// each group's best over its rows' lists. `heads`: scratch, one int a row of
// the largest group. Returns false when a kept score is not finite.
bool merge_row_candidates(const RowCandidates& rows, const StepGroups& groups, const float* row_logp, int vocab_size,
                          int stride, int32_t* heads, int32_t* idx, float* val, int32_t* got);

}  // namespace softalign::internal

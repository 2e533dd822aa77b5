// A step's candidates from its log-probability rows: each row's running
// log-probability is added to its row, then each group of rows (StepGroups)
// takes its best candidates (or its forced one). One rule for every engine
// that computes its rows on the host (the CPU engine, the ensemble engine).
#pragma once

#include <cstdint>

#include "backends/engine.hpp"
#include "kernels/kernels.hpp"
#include "model/shortlist.hpp"

namespace softalign::internal {

// `rows`: the step's rows of log-softmax values, one block per group (its
// rows × its sentence's vocabulary: vocab.width(b) columns, column i the id
// vocab.ids(b)[i]); row r becomes row_logp[r] + rows[r]. For each group g,
// writes its candidates at idx/val + g * stride as Engine::step describes
// (local row * vocab_size + id; got[g] of them). Returns false when a kept
// score is not finite.
bool pick_candidates(const kernels::KernelTable& k, float* rows, const SentenceVocabularies& vocab, int vocab_size,
                     const StepGroups& groups, const float* row_logp, int stride, int32_t* idx, float* val,
                     int32_t* got);

}  // namespace softalign::internal

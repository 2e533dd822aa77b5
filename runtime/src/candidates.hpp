// A step's candidates from its log-probability rows: each row's running
// log-probability is added to its row, then each group of rows (StepGroups)
// takes its best candidates (or its forced one). One rule for every engine
// that computes its rows on the host (the CPU engine, the ensemble engine).
#pragma once

#include <cstdint>

#include "engine.hpp"
#include "kernels/kernels.hpp"

namespace softalign::internal {

// `rows`: the step's rows (width columns each, log-softmax values) in group
// order; row r becomes row_logp[r] + rows[r]. For each group g, writes its
// candidates at idx/val + g * stride as Engine::step describes (got[g] of
// them). Returns false when a kept score is not finite.
bool pick_candidates(const kernels::KernelTable& k, float* rows, int width, const StepGroups& groups,
                     const float* row_logp, int stride, int32_t* idx, float* val, int32_t* got);

}  // namespace softalign::internal

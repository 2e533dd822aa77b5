// What the CPU backend makes of a model's weights, one per CPU engine (so
// per Translator): the linear layers over many rows (linear.hpp), views of
// the mapped weights, with XNNPACK's packed copies where they are used
// (f32/f16 encoder input projections and attention keys: 4.6 MB for a model
// 384 wide). An XNNPACK operator holds its inputs between setup and run, and
// Debian's XNNPACK has no shared weights cache, so each translator packs its
// own and no translator waits on another's (no lock). The int8 models that
// ship use no XNNPACK operator: for them this is views only.
#pragma once

#include <memory>
#include <vector>

#include "backends/cpu/linear.hpp"
#include "backends/ops.hpp"
#include "softalign/status.hpp"

namespace softalign::internal {

struct CpuWeights {
  std::vector<std::unique_ptr<Linear>> enc_proj_fwd, enc_proj_bwd;  // per encoder layer: W_ih x + b_ih (bwd: null one-way)
  Linear keys;       // bahdanau U_a (+b), luong general W_a, concat W_k (none otherwise)
  Linear generator;  // the output layer over the whole vocabulary
};

// Builds the CpuWeights of a model's plan into *out (empty): the linear layers
// of its encoder layers (their input projections), of its kKeys and of its
// kOutput; an error if XNNPACK fails.
Status build_cpu_weights(const Plan& plan, CpuWeights* out);

}  // namespace softalign::internal

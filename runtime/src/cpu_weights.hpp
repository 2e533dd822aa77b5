// What the CPU backend makes of a model's weights, once per Model and shared
// by every Translator on it: the linear layers over many rows (linear.hpp),
// with XNNPACK's packed copies where they are used (f32/f16 encoder input
// projections and attention keys). Built on the first CPU prepare, not at
// load, so a model that never runs on the CPU never pays for them.
#pragma once

#include <memory>
#include <vector>

#include "linear.hpp"
#include "softalign/status.hpp"

namespace softalign::internal {

struct ModelImpl;

struct CpuWeights {
  std::vector<std::unique_ptr<Linear>> enc_proj_fwd, enc_proj_bwd;  // per encoder layer: W_ih x + b_ih
  Linear keys;       // bahdanau U_a (+b), luong general W_a, concat W_k (none otherwise)
  Linear generator;  // the output layer over the whole vocabulary
};

// The model's CpuWeights, built once (thread-safe); an error if building failed.
Status cpu_weights(const ModelImpl& model, const CpuWeights** out);

}  // namespace softalign::internal

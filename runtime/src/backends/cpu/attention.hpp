// The attention operations (ops.hpp: kAttendAdditive, kAttendWithState) for
// one row, over explicit buffers: the CPU engine runs them for each row of a
// step, and a device engine runs them on the host for an operation it does
// not support (its per-op fallback to the CPU: VulkanEngine::supports).
#pragma once

#include <cstdint>

#include "backends/ops.hpp"
#include "kernels/kernels.hpp"

namespace softalign::internal {

// One sentence's encoder memory, as an attention reads it.
struct SourceMemory {
  const float* annotations = nullptr;  // [length, 2n]: h_j
  const float* keys = nullptr;         // [length, key_dim] (null: the plan has no kKeys)
  int length = 0;                      // S of this sentence
};

// Scratch an attention may use: `query` holds max(a, 1) floats, `xq` the
// quantized activations of a product with the state (d bytes).
struct AttentionScratch {
  float* query = nullptr;
  int8_t* xq = nullptr;
};

// kAttendAdditive: e_j = vᵀ tanh(q + key_j), α = softmax(e) into att[0, S),
// c = Σ α_j h_j into ctx (2n floats).
void attend_additive(const kernels::KernelTable& k, const StepOperation& op, const PlanShapes& shapes, const float* q,
                     const SourceMemory& src, float* att, float* ctx);

// kAttendWithState with the new top state h at step t: the scores over the
// window, a softmax there (Window::kPredicted: times the Gaussian, not
// renormalised), zeros outside, into att[0, S); c = Σ a_j h_j into ctx (2n
// floats). False when the predicted position is not a number (damaged
// weights: the step's fault; the window is then taken at 0).
bool attend_with_state(const kernels::KernelTable& k, const StepOperation& op, const PlanShapes& shapes,
                       const float* h, int t, const SourceMemory& src, const AttentionScratch& scratch, float* att,
                       float* ctx);

}  // namespace softalign::internal

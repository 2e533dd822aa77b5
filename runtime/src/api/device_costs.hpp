// What a Translator's device engine costs, for the benchmark
// (tests/bench/bench_softalign.cpp) and the Vulkan tests only: not public API
// (BackendInfo says which backend and why; these counters describe how the
// Vulkan engine records its work, which changes with it).
#pragma once

#include <cstdint>

#include "api/translator_access.hpp"
#include "softalign/translator.hpp"

namespace softalign::internal {

// All 0 on the CPU.
struct DeviceCostReport {
  // One decoder step (ending in top-k): its dispatches and barriers, and the
  // bytes of weights it reads (at most: the output layer reads only the
  // shortlist's rows).
  int step_dispatches = 0;
  int step_barriers = 0;
  uint64_t step_weight_bytes = 0;
  // Greedy search (beam 1) on a device chooses each row's next id there and
  // runs up to greedy_steps_per_submit steps a submission (0: each step's
  // choice is made on the host); its step's dispatches and barriers.
  int greedy_steps_per_submit = 0;
  int greedy_step_dispatches = 0;
  int greedy_step_barriers = 0;
  // A batch's encoder, every layer and position: its dispatches and barriers.
  int encoder_dispatches = 0;
  int encoder_barriers = 0;
  // The step's operations the device engine does not support, run on the
  // host with the CPU's implementation (its per-op fallback).
  int host_operations = 0;
};

inline const DeviceCostReport& device_costs(const Translator& translator) {
  return TranslatorAccess::device_costs(translator);
}

}  // namespace softalign::internal

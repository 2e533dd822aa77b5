// The Vulkan backend's entry for prepare: the engine for a translator, or
// why not (the reason `auto` reports when it takes the CPU instead).
#pragma once

#include <memory>
#include <string>

#include "backends/engine.hpp"
#include "backends/ops.hpp"
#include "backends/shortlist.hpp"
#include "kernels/kernels.hpp"

namespace softalign::internal {

// `asked`: backend = vulkan (any Vulkan device will do, a CPU device such
// as lavapipe included); otherwise backend = auto, which takes only a real
// GPU (integrated or discrete). On success *device describes the device.
// `plan`, `shortlist`: the model's plan and the table to select from
// (VulkanEngine's); `kernels`: the host's (steps chosen on the host).
Status make_vulkan_engine(const Plan& plan, const ShortlistTable& shortlist, const kernels::KernelTable& kernels,
                          const EngineLimits& limits, bool asked, std::unique_ptr<Engine>* out, std::string* device);

}  // namespace softalign::internal

// The Vulkan backend's entry for prepare: the engine for a translator, or
// why not (the reason `auto` reports when it takes the CPU instead).
#pragma once

#include <memory>
#include <string>

#include "backends/engine.hpp"
#include "kernels/kernels.hpp"
#include "model/model_impl.hpp"

namespace softalign::internal {

// `asked`: backend = vulkan (any Vulkan device will do, a CPU device such
// as lavapipe included); otherwise backend = auto, which takes only a real
// GPU (integrated or discrete). On success *device describes the device.
// `kernels`: the host's (steps chosen on the host); `shortlist`: the table
// to select from (VulkanEngine's).
Status make_vulkan_engine(const ModelImpl& model, const kernels::KernelTable& kernels, const EngineLimits& limits,
                          bool asked, const ShortlistTable* shortlist, std::unique_ptr<Engine>* out,
                          std::string* device);

}  // namespace softalign::internal

// The Vulkan backend's entry for prepare: the engine for a translator, or
// why not (the reason `auto` reports when it takes the CPU instead).
#pragma once

#include <memory>
#include <string>

#include "engine.hpp"
#include "model_impl.hpp"

namespace softalign::internal {

// `asked`: backend = vulkan (any Vulkan device will do, a CPU device such
// as lavapipe included); otherwise backend = auto, which takes only a real
// GPU (integrated or discrete). On success *device describes the device.
Status make_vulkan_engine(const ModelImpl& model, const EngineLimits& limits, bool asked, std::unique_ptr<Engine>* out,
                          std::string* device);

}  // namespace softalign::internal

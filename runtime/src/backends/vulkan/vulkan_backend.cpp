#include "backends/vulkan/vulkan_backend.hpp"

#include "backends/vulkan/vulkan_device.hpp"
#include "backends/vulkan/vulkan_engine.hpp"
#include "backends/vulkan/vulkan_weights.hpp"

namespace softalign::internal {

namespace {

Status unsupported(const std::string& why) { return Status(StatusCode::kUnsupported, why); }

}  // namespace

Status make_vulkan_engine(const Plan& plan, const ShortlistTable& shortlist, const kernels::KernelTable& kernels,
                          const EngineLimits& limits, bool asked, std::unique_ptr<Engine>* out, std::string* device) {
  if (!asked && !vk::gpu_device_node_present())
    return unsupported("no GPU device node (/dev/dri/renderD*, /dev/nvidia0, /dev/kgsl-3d0, /dev/mali0): the Vulkan "
                       "drivers are not loaded");
  vk::Device* dev = nullptr;
  Status st = vk::Device::probe(&dev);
  if (!st.ok()) return st;
  *device = dev->description();
  if (!asked && !dev->is_gpu())
    return unsupported("no Vulkan GPU; the only device is " + dev->description() +
                       ", used only when the Vulkan backend is asked for");
  st = dev->open();
  if (!st.ok()) return Status(st.code(), "cannot open the Vulkan device " + dev->description() + ": " + st.message());
  if (dev->integer_dot) *device += ", int8 dot products";
  if (dev->subgroup_sums) *device += ", subgroup sums";
  std::shared_ptr<const vk::VulkanWeights> weights;
  st = vulkan_weights(plan, dev, &weights);
  if (!st.ok()) return st;
  auto engine = std::make_unique<vk::VulkanEngine>(plan, shortlist, *dev, std::move(weights), kernels, limits);
  st = engine->init();
  if (!st.ok()) return st;
  *out = std::move(engine);
  return Status::Ok();
}

}  // namespace softalign::internal

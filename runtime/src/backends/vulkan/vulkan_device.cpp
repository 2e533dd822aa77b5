#include "backends/vulkan/vulkan_device.hpp"

#include <cstring>
#if defined(__linux__)
#include <dirent.h>
#include <sys/stat.h>
#endif
#include <memory>
#include <vector>

#include "backends/vulkan/spirv_shaders.hpp"

namespace softalign::internal::vk {

namespace {

const char* const kKernelNames[] = {"product",           "product_row",           "gru_step",
                                    "gru_step_row",      "lstm_step",             "lstm_step_row",
                                    "gru_encoder_layer", "gru_encoder_layer_row", "lstm_encoder_layer",
                                    "lstm_encoder_layer_row", "step_input",       "embed",
                                    "attend_additive",   "attend_luong",          "topk",
                                    "greedy"};
static_assert(sizeof(kKernelNames) / sizeof(kKernelNames[0]) == static_cast<int>(Kernel::kCount));

const char* type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU device";
    default: return "other device";
  }
}

// Preference among devices: a discrete GPU first, a CPU device last.
int rank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
  }
}

Status unavailable(const std::string& why) { return Status(StatusCode::kUnsupported, why); }

}  // namespace

DriverHooks g_driver_hooks;
IntegerDot g_integer_dot = IntegerDot::kWhereAccelerated;
bool g_subgroup_sums = true;

Status vk_error(const char* what, VkResult r) {
  const StatusCode code = r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY
                              ? StatusCode::kResourceExhausted
                              : StatusCode::kUnsupported;
  return Status(code, std::string(what) + ": " + result_name(r));
}

Status Device::probe(Device** out) {
  // Made once; never destroyed (see the header).
  static Device* device = nullptr;
  static Status status;
  static std::once_flag once;
  std::call_once(once, [] {
    auto d = std::make_unique<Device>();
    status = d->probe_once();
    if (status.ok()) {
      device = d.release();
    } else if (d->instance != VK_NULL_HANDLE) {
      d->api.vkDestroyInstance(d->instance, nullptr);
      close_loader(&d->api);
    } else {
      close_loader(&d->api);
    }
  });
  *out = device;
  return status;
}

Status Device::probe_once() {
  std::string why;
  if (!open_loader(&api, &why)) return unavailable(why);
  uint32_t version = VK_API_VERSION_1_0;
  if (api.vkEnumerateInstanceVersion != nullptr) api.vkEnumerateInstanceVersion(&version);
  if (version < VK_API_VERSION_1_1) return unavailable("the Vulkan loader is older than Vulkan 1.1");
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "softalign";
  app.pEngineName = "softalign";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  ci.pApplicationInfo = &app;
  VkResult r = api.vkCreateInstance(&ci, nullptr, &instance);
  if (r != VK_SUCCESS) {
    instance = VK_NULL_HANDLE;
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER) return unavailable("no Vulkan driver (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER)");
    return vk_error("vkCreateInstance", r);
  }
  if (!load_instance_functions(&api, instance, &why)) return unavailable(why);
  uint32_t count = 0;
  r = api.vkEnumeratePhysicalDevices(instance, &count, nullptr);
  if (r != VK_SUCCESS) return vk_error("vkEnumeratePhysicalDevices", r);
  if (count == 0) return unavailable("no Vulkan device");
  std::vector<VkPhysicalDevice> devices(count);
  r = api.vkEnumeratePhysicalDevices(instance, &count, devices.data());
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) return vk_error("vkEnumeratePhysicalDevices", r);
  devices.resize(count);
  int best_rank = -1;
  for (VkPhysicalDevice pd : devices) {
    VkPhysicalDeviceProperties p;
    api.vkGetPhysicalDeviceProperties(pd, &p);
    if (p.apiVersion < VK_API_VERSION_1_1) continue;
    uint32_t families = 0;
    api.vkGetPhysicalDeviceQueueFamilyProperties(pd, &families, nullptr);
    std::vector<VkQueueFamilyProperties> fp(families);
    api.vkGetPhysicalDeviceQueueFamilyProperties(pd, &families, fp.data());
    int family = -1;
    for (uint32_t f = 0; f < families && family < 0; ++f)
      if (fp[f].queueFlags & VK_QUEUE_COMPUTE_BIT) family = static_cast<int>(f);
    if (family < 0 || rank(p.deviceType) <= best_rank) continue;
    best_rank = rank(p.deviceType);
    physical = pd;
    properties = p;
    queue_family = static_cast<uint32_t>(family);
  }
  if (physical == VK_NULL_HANDLE) return unavailable("no Vulkan 1.1 device with a compute queue");
  api.vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  for (uint32_t h = 0; h < memory.memoryHeapCount; ++h)
    if (memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      device_local_bytes = std::max(device_local_bytes, memory.memoryHeaps[h].size);
  description_ = std::string(properties.deviceName) + " (" + type_name(properties.deviceType) + ")";
  return Status::Ok();
}

bool Device::is_gpu() const {
  return properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
         properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
}

Status Device::open() {
  std::call_once(open_flag_, [this] { open_status_ = open_once(); });
  return open_status_;
}

// The physical device's properties (or, with `features`, its features) of
// the structure `chain` (its sType set), through vkGetPhysicalDevice*2.
static void query_chain(const Api& api, VkPhysicalDevice physical, void* chain, bool features) {
  if (features) {
    VkPhysicalDeviceFeatures2 f2{};
    f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    f2.pNext = chain;
    api.vkGetPhysicalDeviceFeatures2(physical, &f2);
  } else {
    VkPhysicalDeviceProperties2 p2{};
    p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    p2.pNext = chain;
    api.vkGetPhysicalDeviceProperties2(physical, &p2);
  }
}

// Packed int8 dot products: the extension, its feature, and whether the
// device says 4x8-bit packed signed ones are accelerated.
static bool integer_dot_wanted(const Api& api, VkPhysicalDevice physical) {
  if (g_integer_dot == IntegerDot::kNever) return false;
  uint32_t count = 0;
  if (api.vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkExtensionProperties> exts(count);
  if (api.vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, exts.data()) != VK_SUCCESS) return false;
  bool listed = false;
  for (uint32_t e = 0; e < count; ++e)
    listed = listed || std::strcmp(exts[e].extensionName, VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME) == 0;
  if (!listed) return false;
  VkPhysicalDeviceShaderIntegerDotProductFeaturesKHR features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES_KHR;
  query_chain(api, physical, &features, true);
  if (!features.shaderIntegerDotProduct) return false;
  VkPhysicalDeviceShaderIntegerDotProductPropertiesKHR props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_PROPERTIES_KHR;
  query_chain(api, physical, &props, false);
  return g_integer_dot == IntegerDot::kWhereSupported || props.integerDotProduct4x8BitPackedSignedAccelerated;
}

// Subgroup shuffles in compute shaders, in subgroups of at least 8 (the
// _row kernels' lanes per output).
static bool subgroup_sums_wanted(const Api& api, VkPhysicalDevice physical) {
  if (!g_subgroup_sums) return false;
  VkPhysicalDeviceSubgroupProperties sub{};
  sub.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  query_chain(api, physical, &sub, false);
  return sub.subgroupSize >= 8 && (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
         (sub.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) != 0;
}

Status Device::open_once() {
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qi{};
  qi.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  qi.queueFamilyIndex = queue_family;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  VkDeviceCreateInfo di{};
  di.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  di.queueCreateInfoCount = 1;
  di.pQueueCreateInfos = &qi;
  integer_dot = integer_dot_wanted(api, physical);
  subgroup_sums = subgroup_sums_wanted(api, physical);
  VkPhysicalDeviceShaderIntegerDotProductFeaturesKHR dot_feature{};
  const char* dot_extension = VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME;
  if (integer_dot) {
    dot_feature.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES_KHR;
    dot_feature.shaderIntegerDotProduct = VK_TRUE;
    di.pNext = &dot_feature;
    di.enabledExtensionCount = 1;
    di.ppEnabledExtensionNames = &dot_extension;
  }
  VkResult r = api.vkCreateDevice(physical, &di, nullptr, &device);
  if (r != VK_SUCCESS) {
    device = VK_NULL_HANDLE;
    return vk_error("vkCreateDevice", r);
  }
  std::string why;
  if (!load_device_functions(&api, device, &why)) return unavailable(why);
  api.vkGetDeviceQueue(device, queue_family, 0, &queue);

  VkDescriptorSetLayoutBinding bindings[4]{};
  for (uint32_t b = 0; b < 4; ++b) {
    bindings[b].binding = b;
    bindings[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[b].descriptorCount = 1;
    bindings[b].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo li{};
  li.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  li.bindingCount = 4;
  li.pBindings = bindings;
  r = api.vkCreateDescriptorSetLayout(device, &li, nullptr, &set_layout);
  if (r != VK_SUCCESS) return vk_error("vkCreateDescriptorSetLayout", r);
  // topk.comp runs 256 invocations per workgroup (the spec guarantees 128).
  if (properties.limits.maxComputeWorkGroupInvocations < 256 || properties.limits.maxComputeWorkGroupSize[0] < 256)
    return unavailable("the Vulkan device runs fewer than 256 invocations per workgroup");
  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushWords * 4};
  if (properties.limits.maxPushConstantsSize < push.size)
    return unavailable("the Vulkan device has less than 128 bytes of push constants");
  VkPipelineLayoutCreateInfo pl{};
  pl.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  pl.setLayoutCount = 1;
  pl.pSetLayouts = &set_layout;
  pl.pushConstantRangeCount = 1;
  pl.pPushConstantRanges = &push;
  r = api.vkCreatePipelineLayout(device, &pl, nullptr, &pipeline_layout);
  if (r != VK_SUCCESS) return vk_error("vkCreatePipelineLayout", r);

  for (int k = 0; k < static_cast<int>(Kernel::kCount); ++k) {
    // The kernel's variant for what the device uses, where it has one
    // (<name>_dot_sub, _dot, _sub), else the plain module.
    const std::string base = kKernelNames[k];
    const SpirvModule* spv = nullptr;
    if (integer_dot && subgroup_sums) spv = spirv_module((base + "_dot_sub").c_str());
    if (spv == nullptr && integer_dot) spv = spirv_module((base + "_dot").c_str());
    if (spv == nullptr && subgroup_sums) spv = spirv_module((base + "_sub").c_str());
    if (spv == nullptr) spv = spirv_module(base.c_str());
    if (spv == nullptr) return Status(StatusCode::kInternal, std::string("no SPIR-V for shader ") + kKernelNames[k]);
    VkShaderModuleCreateInfo si{};
    si.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    si.codeSize = spv->count * 4;
    si.pCode = spv->words;
    r = api.vkCreateShaderModule(device, &si, nullptr, &modules_[k]);
    if (r != VK_SUCCESS) return vk_error("vkCreateShaderModule", r);
  }
  VkCommandPoolCreateInfo cp{};
  cp.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  cp.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  cp.queueFamilyIndex = queue_family;
  r = api.vkCreateCommandPool(device, &cp, nullptr, &upload_pool_);
  if (r != VK_SUCCESS) return vk_error("vkCreateCommandPool", r);
  return Status::Ok();
}

bool gpu_device_node_present() {
#if defined(__linux__)
  struct stat st;
  for (const char* node : {"/dev/nvidia0", "/dev/kgsl-3d0", "/dev/mali0"})
    if (stat(node, &st) == 0) return true;
  DIR* dri = opendir("/dev/dri");
  if (dri == nullptr) return false;
  bool render = false;
  while (const dirent* e = readdir(dri))
    if (std::strncmp(e->d_name, "renderD", 7) == 0) render = true;
  closedir(dri);
  return render;
#else
  return true;
#endif
}

bool Specialization::operator==(const Specialization& o) const {
  return std::memcmp(values, o.values, sizeof values) == 0;
}

VkPipeline Device::pipeline(Kernel kernel, const Specialization& spec, Status* error) {
  std::lock_guard<std::mutex> lock(pipeline_mutex_);
  for (const Compiled& c : pipelines_)
    if (c.kernel == kernel && c.spec == spec) return c.pipeline;
  VkSpecializationMapEntry entries[Specialization::kCount];
  for (uint32_t i = 0; i < Specialization::kCount; ++i)
    entries[i] = {i, static_cast<uint32_t>(i * sizeof(uint32_t)), sizeof(uint32_t)};
  VkSpecializationInfo info{Specialization::kCount, entries, sizeof spec.values, spec.values};
  VkComputePipelineCreateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = modules_[static_cast<int>(kernel)];
  ci.stage.pName = "main";
  ci.stage.pSpecializationInfo = &info;
  ci.layout = pipeline_layout;
  VkPipeline made = VK_NULL_HANDLE;
  const VkResult r = api.vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &ci, nullptr, &made);
  if (r != VK_SUCCESS) {
    *error = vk_error((std::string("compute pipeline ") + kKernelNames[static_cast<int>(kernel)]).c_str(), r);
    return VK_NULL_HANDLE;
  }
  pipelines_.push_back({kernel, spec, made});
  return made;
}

int Device::memory_type(uint32_t allowed, VkMemoryPropertyFlags want) const {
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
    if ((allowed & (1u << i)) && (memory.memoryTypes[i].propertyFlags & want) == want) return static_cast<int>(i);
  return -1;
}

// A device-local type in the largest device-local heap (device_local_bytes,
// what the size checks compare against), host-visible where that heap has
// such a type (integrated GPUs, CPU devices: then mapped); never the small
// host-visible window (256 MiB) of a discrete GPU without resizable BAR.
int Device::device_local_type(uint32_t allowed) const {
  const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int best = -1;
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    const VkMemoryType& t = memory.memoryTypes[i];
    if (!(allowed & (1u << i)) || !(t.propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) ||
        memory.memoryHeaps[t.heapIndex].size != device_local_bytes)
      continue;
    if (best < 0 || ((t.propertyFlags & visible) == visible &&
                     (memory.memoryTypes[best].propertyFlags & visible) != visible))
      best = static_cast<int>(i);
  }
  return best;
}

Status Device::create_buffer(VkDeviceSize size, bool host_visible, Buffer* out) const {
  *out = Buffer{};
  VkBufferCreateInfo bi{};
  bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  bi.size = size < 16 ? 16 : size;
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
             VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = api.vkCreateBuffer(device, &bi, nullptr, &out->buffer);
  if (r != VK_SUCCESS) {
    out->buffer = VK_NULL_HANDLE;
    return vk_error("vkCreateBuffer", r);
  }
  VkMemoryRequirements req;
  api.vkGetBufferMemoryRequirements(device, out->buffer, &req);
  const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int type = -1;
  if (host_visible) {
    type = memory_type(req.memoryTypeBits, visible | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    if (type < 0) type = memory_type(req.memoryTypeBits, visible);
  } else {
    type = device_local_type(req.memoryTypeBits);
    if (type < 0) type = memory_type(req.memoryTypeBits, 0);
  }
  if (type < 0) {
    destroy_buffer(out);
    return unavailable("no suitable Vulkan memory type");
  }
  VkMemoryAllocateInfo ai{};
  ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = static_cast<uint32_t>(type);
  r = api.vkAllocateMemory(device, &ai, nullptr, &out->memory);
  if (r != VK_SUCCESS) {
    out->memory = VK_NULL_HANDLE;
    destroy_buffer(out);
    return vk_error("vkAllocateMemory", r);
  }
  r = api.vkBindBufferMemory(device, out->buffer, out->memory, 0);
  if (r == VK_SUCCESS && (memory.memoryTypes[type].propertyFlags & visible) == visible &&
      (host_visible || map_device_local))
    r = api.vkMapMemory(device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped);
  if (r != VK_SUCCESS) {
    destroy_buffer(out);
    return vk_error("vkBindBufferMemory/vkMapMemory", r);
  }
  out->size = size;
  return Status::Ok();
}

void Device::destroy_buffer(Buffer* b) const {
  if (b->mapped != nullptr) api.vkUnmapMemory(device, b->memory);
  if (b->buffer != VK_NULL_HANDLE) api.vkDestroyBuffer(device, b->buffer, nullptr);
  if (b->memory != VK_NULL_HANDLE) api.vkFreeMemory(device, b->memory, nullptr);
  *b = Buffer{};
}

Status Device::upload(const Buffer& dst, VkDeviceSize offset, const void* data, VkDeviceSize size) const {
  if (size == 0) return Status::Ok();
  if (dst.mapped != nullptr) {
    std::memcpy(static_cast<uint8_t*>(dst.mapped) + offset, data, size);
    return Status::Ok();
  }
  std::lock_guard<std::mutex> one_upload(upload_mutex_);  // upload_pool_ records one at a time
  Buffer staging;
  Status st = create_buffer(size, true, &staging);
  if (!st.ok()) return st;
  std::memcpy(staging.mapped, data, size);
  VkCommandBuffer cb = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  {
    VkCommandBufferAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = upload_pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkResult r = api.vkAllocateCommandBuffers(device, &ai, &cb);
    if (r != VK_SUCCESS) st = vk_error("vkAllocateCommandBuffers", r);
  }
  VkFenceCreateInfo fi{};
  fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  if (st.ok()) {
    VkResult r = api.vkCreateFence(device, &fi, nullptr, &fence);
    if (r != VK_SUCCESS) st = vk_error("vkCreateFence", r);
  }
  if (st.ok()) {
    VkCommandBufferBeginInfo bi{};
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    api.vkBeginCommandBuffer(cb, &bi);
    VkBufferCopy copy{0, offset, size};
    api.vkCmdCopyBuffer(cb, staging.buffer, dst.buffer, 1, &copy);
    api.vkEndCommandBuffer(cb);
    st = submit_and_wait(&cb, 1, fence);
  }
  if (fence != VK_NULL_HANDLE) api.vkDestroyFence(device, fence, nullptr);
  if (cb != VK_NULL_HANDLE) {
    api.vkFreeCommandBuffers(device, upload_pool_, 1, &cb);
  }
  destroy_buffer(&staging);
  return st;
}

Status Device::submit_and_wait(const VkCommandBuffer* cbs, uint32_t count, VkFence fence) const {
  VkSubmitInfo si{};
  si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  si.commandBufferCount = count;
  si.pCommandBuffers = cbs;
  if (g_driver_hooks.enter != nullptr) g_driver_hooks.enter();
  VkResult r;
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    r = api.vkQueueSubmit(queue, 1, &si, fence);
  }
  const char* failed = "vkQueueSubmit";
  if (r == VK_SUCCESS) {
    r = api.vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX);
    failed = "vkWaitForFences";
  }
  if (r == VK_SUCCESS) {
    r = api.vkResetFences(device, 1, &fence);
    failed = "vkResetFences";
  }
  if (g_driver_hooks.leave != nullptr) g_driver_hooks.leave();
  return r == VK_SUCCESS ? Status::Ok() : vk_error(failed, r);
}

}  // namespace softalign::internal::vk

// The process's Vulkan device: the loader, an instance, the physical device
// chosen (discrete GPU, then integrated, virtual, CPU), and once a translator
// takes it, a logical device with one compute queue and the compute pipelines
// of every shader. One per process, made on first use and kept until exit
// (drivers' own exit handlers do not order with static destructors), shared by
// every Model and Translator: the queue is locked while a command buffer is
// submitted and waited for.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "backends/vulkan/vulkan_loader.hpp"
#include "softalign/status.hpp"

namespace softalign::internal::vk {

// The compute shaders (shaders/<name>.comp), one pipeline each.
enum class Kernel {
  // Each of the first five in tiles of 4 rows, and one row at a time (_row:
  // a translator of one row, where a tile's unused rows would cost).
  kProduct,  // products of the weights with activation rows (product.glsl)
  kProductRow,
  kGruStep,  // a decoder GRU layer: both products and the cell
  kGruStepRow,
  kLstmStep,  // a decoder LSTM layer: both products and the cell
  kLstmStepRow,
  kGruEncoderLayer,  // an encoder layer's recurrence, every position, each direction
  kGruEncoderLayerRow,
  kLstmEncoderLayer,
  kLstmEncoderLayerRow,
  kStepInput,       // a decoder step's state gather, embedding and fed input
  kEmbed,
  kAttendAdditive,
  kAttendLuong,
  kTopk,
  kGreedy,  // greedy search's choice and the next step's rows, on the device
  kCount
};

// Push constants: every shader reads its own fields of these 32 words.
constexpr uint32_t kPushWords = 32;

// A kernel's specialization constants (constant_id 0..4; each shader names
// its own): what stays fixed for a recorded dispatch — the storage types of
// the matrices it reads, the terms of a product — so that the driver's
// compiler keeps only that code. A branch on a push constant is not removed:
// a CPU device (lavapipe) runs both sides under a mask, and a GPU keeps
// registers for both.
struct Specialization {
  static constexpr uint32_t kCount = 5;
  uint32_t values[kCount] = {};
  bool operator==(const Specialization& o) const;
};

// A buffer and its memory (mapped when host-visible).
struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  void* mapped = nullptr;
};

class Device {
 public:
  // The process's device, probed (loader, instance, physical device) on the
  // first call. Not ok (with the reason) when there is no loader, no driver
  // or no device with a compute queue.
  static Status probe(Device** out);

  // True for a real GPU (discrete or integrated), the only kind `auto` takes.
  bool is_gpu() const;
  // "<name> (<type>)", e.g. "llvmpipe (LLVM 15.0.6, 256 bits) (CPU device)".
  const std::string& description() const { return description_; }

  // Creates the logical device, queue and pipelines on first use (later
  // calls return the first call's status).
  Status open();

  // Buffers: device-local (host-visible too where the device has such memory,
  // as integrated GPUs and CPU devices do), or host-visible and coherent (for
  // what the host writes and reads each step).
  Status create_buffer(VkDeviceSize size, bool host_visible, Buffer* out) const;
  void destroy_buffer(Buffer* b) const;
  // Copies `size` bytes from host memory into a device buffer at `offset`
  // (mapped directly where possible, else through a staging buffer).
  Status upload(const Buffer& dst, VkDeviceSize offset, const void* data, VkDeviceSize size) const;

  // The pipeline of `kernel` with `spec`, compiled on the first request (at
  // a translator's prepare: the engine records its dispatches there) and kept
  // with the device; VK_NULL_HANDLE with the reason in *error on failure.
  VkPipeline pipeline(Kernel kernel, const Specialization& spec, Status* error);

  // Submits command buffers (in order) and waits for them; the queue is
  // locked while submitting.
  Status submit_and_wait(const VkCommandBuffer* cbs, uint32_t count, VkFence fence) const;

  Api api;
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties{};
  VkPhysicalDeviceMemoryProperties memory{};
  uint32_t queue_family = 0;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  // binding 0 weights, 1 activations, 2 the I/O block's device copy, 3 the host I/O block
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
  VkDeviceSize device_local_bytes = 0;  // the largest device-local heap (where device buffers go)
  // Map device-local memory when it is host-visible too (integrated GPUs, CPU
  // devices). A test turns it off to run the discrete GPU's paths (uploads
  // through a staging buffer) on such a device.
  bool map_device_local = true;
  // Whether the products' int8 path runs on packed int8 dot products
  // (VK_KHR_shader_integer_dot_product's OpSDot: the kernels' _dot modules),
  // decided at open(): where the device says they are accelerated, unless
  // g_integer_dot says otherwise.
  bool integer_dot = false;
  // Whether the lanes that split a row (the _row kernels) sum through
  // subgroup shuffles (the kernels' _sub modules): where the device's compute
  // subgroups shuffle and hold at least 8 invocations, unless g_subgroup_sums
  // is false. Decided at open().
  bool subgroup_sums = false;

 private:
  Status probe_once();
  Status open_once();
  int memory_type(uint32_t allowed, VkMemoryPropertyFlags want) const;
  int device_local_type(uint32_t allowed) const;

  std::string description_;
  VkShaderModule modules_[static_cast<int>(Kernel::kCount)] = {};
  struct Compiled {
    Kernel kernel;
    Specialization spec;
    VkPipeline pipeline;
  };
  std::vector<Compiled> pipelines_;  // under pipeline_mutex_
  std::mutex pipeline_mutex_;
  std::once_flag open_flag_;
  Status open_status_;
  VkCommandPool upload_pool_ = VK_NULL_HANDLE;  // for staging copies, under upload_mutex_
  mutable std::mutex upload_mutex_;
  mutable std::mutex queue_mutex_;
};

// Whether the system shows a GPU device node, where that is how GPUs appear
// (Linux and Android: a DRM render node, NVIDIA's, Qualcomm's KGSL, Arm's
// Mali). Without one only a CPU driver (lavapipe) could answer, and loading
// the system's drivers to learn that costs 50-130 ms and ~58 MB (Mesa's
// LLVM): `auto` skips the probe then. Elsewhere: true (not known).
bool gpu_device_node_present();

// Called around each submission and its wait, when set: the allocation test
// counts the driver's allocations there apart from the library's (a CPU
// device such as lavapipe executes the commands inside the submission and
// allocates as it goes). Null in normal use.
struct DriverHooks {
  void (*enter)() = nullptr;
  void (*leave)() = nullptr;
};
extern DriverHooks g_driver_hooks;

// When the products use packed int8 dot products: where the device
// accelerates them (the default), wherever it has them at all (a test runs
// them on lavapipe, which has them unaccelerated), or never (a test runs
// the plain path on a device that has them). Set before the first open().
enum class IntegerDot { kWhereAccelerated, kWhereSupported, kNever };
extern IntegerDot g_integer_dot;
// Whether subgroup sums may be used where the device has them (a test turns
// them off to run the shared-memory sums on a device that has them). Set
// before the first open().
extern bool g_subgroup_sums;

// A VkResult failure as a Status: "<what>: <VK_ERROR_...>".
Status vk_error(const char* what, VkResult r);

}  // namespace softalign::internal::vk

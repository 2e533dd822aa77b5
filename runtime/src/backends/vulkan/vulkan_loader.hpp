// The Vulkan loader, opened at run time: dlopen("libvulkan.so.1") and every
// entry point through vkGetInstanceProcAddr / vkGetDeviceProcAddr. Nothing
// links to libvulkan, so the library runs (on the CPU) where there is none.
// SOFTALIGN_VULKAN_LOADER names another file to open (tests point it at a
// file that does not exist to take the no-loader path).
#pragma once

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <string>

namespace softalign::internal::vk {

// Functions of the loader and of an instance.
#define SOFTALIGN_VK_INSTANCE_FUNCTIONS(X)   \
  X(vkDestroyInstance)                       \
  X(vkEnumeratePhysicalDevices)              \
  X(vkGetPhysicalDeviceProperties)           \
  X(vkGetPhysicalDeviceFeatures2)            \
  X(vkGetPhysicalDeviceProperties2)          \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties)     \
  X(vkEnumerateDeviceExtensionProperties)    \
  X(vkCreateDevice)                          \
  X(vkGetDeviceProcAddr)

// Functions of a device.
#define SOFTALIGN_VK_DEVICE_FUNCTIONS(X) \
  X(vkDestroyDevice)                     \
  X(vkGetDeviceQueue)                    \
  X(vkDeviceWaitIdle)                    \
  X(vkCreateBuffer)                      \
  X(vkDestroyBuffer)                     \
  X(vkGetBufferMemoryRequirements)       \
  X(vkAllocateMemory)                    \
  X(vkFreeMemory)                        \
  X(vkBindBufferMemory)                  \
  X(vkMapMemory)                         \
  X(vkUnmapMemory)                       \
  X(vkCreateShaderModule)                \
  X(vkDestroyShaderModule)               \
  X(vkCreateDescriptorSetLayout)         \
  X(vkDestroyDescriptorSetLayout)        \
  X(vkCreatePipelineLayout)              \
  X(vkDestroyPipelineLayout)             \
  X(vkCreateComputePipelines)            \
  X(vkDestroyPipeline)                   \
  X(vkCreateDescriptorPool)              \
  X(vkDestroyDescriptorPool)             \
  X(vkAllocateDescriptorSets)            \
  X(vkUpdateDescriptorSets)              \
  X(vkCreateCommandPool)                 \
  X(vkDestroyCommandPool)                \
  X(vkAllocateCommandBuffers)            \
  X(vkFreeCommandBuffers)                \
  X(vkBeginCommandBuffer)                \
  X(vkEndCommandBuffer)                  \
  X(vkCmdBindPipeline)                   \
  X(vkCmdBindDescriptorSets)             \
  X(vkCmdPushConstants)                  \
  X(vkCmdDispatch)                       \
  X(vkCmdDispatchIndirect)               \
  X(vkCmdPipelineBarrier)                \
  X(vkCmdFillBuffer)                     \
  X(vkCmdCopyBuffer)                     \
  X(vkQueueSubmit)                       \
  X(vkCreateFence)                       \
  X(vkDestroyFence)                      \
  X(vkWaitForFences)                     \
  X(vkResetFences)

struct Api {
  void* library = nullptr;  // the dlopen handle
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  PFN_vkCreateInstance vkCreateInstance = nullptr;
  PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;
#define SOFTALIGN_VK_DECLARE(name) PFN_##name name = nullptr;
  SOFTALIGN_VK_INSTANCE_FUNCTIONS(SOFTALIGN_VK_DECLARE)
  SOFTALIGN_VK_DEVICE_FUNCTIONS(SOFTALIGN_VK_DECLARE)
#undef SOFTALIGN_VK_DECLARE
};

// Opens the loader and reads its global functions; false (and why in *why)
// when there is no loader.
bool open_loader(Api* api, std::string* why);
// The instance's functions; false (and the missing one in *why) if any is missing.
bool load_instance_functions(Api* api, VkInstance instance, std::string* why);
// The device's functions.
bool load_device_functions(Api* api, VkDevice device, std::string* why);
void close_loader(Api* api);

// "VK_ERROR_OUT_OF_DEVICE_MEMORY", ... for messages.
const char* result_name(VkResult r);

}  // namespace softalign::internal::vk

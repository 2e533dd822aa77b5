#include "backends/vulkan/vulkan_loader.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace softalign::internal::vk {

bool open_loader(Api* api, std::string* why) {
  const char* env = std::getenv("SOFTALIGN_VULKAN_LOADER");
  const char* name = env != nullptr && env[0] != '\0' ? env : "libvulkan.so.1";
  api->library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (api->library == nullptr) {
    const char* err = dlerror();
    *why = std::string("no Vulkan loader (") + (err != nullptr ? err : name) + ")";
    return false;
  }
  api->vkGetInstanceProcAddr =
      reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(api->library, "vkGetInstanceProcAddr"));
  if (api->vkGetInstanceProcAddr == nullptr) {
    *why = std::string("the Vulkan loader ") + name + " has no vkGetInstanceProcAddr";
    close_loader(api);
    return false;
  }
  api->vkCreateInstance =
      reinterpret_cast<PFN_vkCreateInstance>(api->vkGetInstanceProcAddr(nullptr, "vkCreateInstance"));
  api->vkEnumerateInstanceVersion = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
      api->vkGetInstanceProcAddr(nullptr, "vkEnumerateInstanceVersion"));
  if (api->vkCreateInstance == nullptr) {
    *why = "the Vulkan loader has no vkCreateInstance";
    close_loader(api);
    return false;
  }
  return true;
}

bool load_instance_functions(Api* api, VkInstance instance, std::string* why) {
#define SOFTALIGN_VK_LOAD(name)                                                               \
  api->name = reinterpret_cast<PFN_##name>(api->vkGetInstanceProcAddr(instance, #name));      \
  if (api->name == nullptr) {                                                                 \
    *why = "the Vulkan loader has no " #name;                                                 \
    return false;                                                                             \
  }
  SOFTALIGN_VK_INSTANCE_FUNCTIONS(SOFTALIGN_VK_LOAD)
#undef SOFTALIGN_VK_LOAD
  return true;
}

bool load_device_functions(Api* api, VkDevice device, std::string* why) {
#define SOFTALIGN_VK_LOAD(name)                                                         \
  api->name = reinterpret_cast<PFN_##name>(api->vkGetDeviceProcAddr(device, #name));    \
  if (api->name == nullptr) {                                                           \
    *why = "the Vulkan device has no " #name;                                           \
    return false;                                                                       \
  }
  SOFTALIGN_VK_DEVICE_FUNCTIONS(SOFTALIGN_VK_LOAD)
#undef SOFTALIGN_VK_LOAD
  return true;
}

void close_loader(Api* api) {
  if (api->library != nullptr) dlclose(api->library);
  *api = Api{};
}

const char* result_name(VkResult r) {
  switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_FORMAT_NOT_SUPPORTED: return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    default: return "VkResult error";
  }
}

}  // namespace softalign::internal::vk

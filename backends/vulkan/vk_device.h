// The Vulkan objects the delegate uses, behind small helpers: one
// process-wide instance and logical device (created by the first delegate
// that needs it, kept for the process), buffers, and compute
// pipelines built from SPIR-V embedded in the library.
//
// Device choice: the first physical device with a compute queue, or the
// one the environment variable ETR_VULKAN_DEVICE=N names (index in
// vkEnumeratePhysicalDevices order). ETR_VULKAN_VALIDATION=1 enables the
// Khronos validation layer when it is installed; every message it reports
// at warning or error severity is logged and counted
// (vulkan_validation_messages()).
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"

namespace etr {
namespace vulkan {

// A compute pipeline with `bindings` storage buffers (bindings 0..n-1) and
// `push_bytes` of push constants.
struct Pipeline {
  VkShaderModule module = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  uint32_t bindings = 0;
  uint32_t push_bytes = 0;
};

// Pipelines the device keeps for every delegate (one per shader slot).
constexpr size_t kMaxPipelines = 64;

struct Device {
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  VkPhysicalDeviceMemoryProperties memory = {};
  VkPhysicalDeviceLimits limits = {};
  char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE] = {};
  uint32_t index = 0;  // in vkEnumeratePhysicalDevices order
  bool validation = false;
  // Storage buffers of 16-bit elements (Vulkan 1.1 storageBuffer16BitAccess,
  // enabled at creation when the device has it).
  bool fp16_storage = false;
  // Pipelines shared by every delegate on this device (pipeline()).
  Pipeline pipelines[kMaxPipelines];
};

// The process-wide device, created on first use and kept until the process
// exits (ETR_VULKAN_DEVICE and ETR_VULKAN_VALIDATION are read then); every
// successful acquire is paired with release_device(). Fails with
// NotSupported (naming the reason: no loader/driver, no device, no compute
// queue, a bad ETR_VULKAN_DEVICE) when there is nothing to run on; a later
// acquire tries again.
Error acquire_device(size_t delegate_index, Device** out);
void release_device();

// Submits one command buffer to the shared queue, signalling `fence`. The
// queue is shared by every delegate in the process, so submissions are
// serialized (Vulkan requires external synchronization of a queue).
VkResult submit(const Device& dev, VkCommandBuffer commands, VkFence fence);

// A buffer with its own memory. Host-visible buffers stay mapped.
struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  void* mapped = nullptr;
};
// DelegateMemoryAllocationFailed (naming `what`) when Vulkan refuses the
// buffer or its memory; nothing is leaked then.
Error create_buffer(const Device& dev, VkDeviceSize size, bool host_visible, size_t delegate_index,
                    const char* what, Buffer* out);
void destroy_buffer(const Device& dev, Buffer* b);

Error create_pipeline(const Device& dev, const uint32_t* code, size_t words, uint32_t bindings,
                      uint32_t push_bytes, size_t delegate_index, const char* name, Pipeline* out);
void destroy_pipeline(const Device& dev, Pipeline* p);

// The device's pipeline in `slot` (< kMaxPipelines), created from the other
// arguments on first use and kept with the device: delegates of one
// program, and programs loaded again, create no pipeline.
Error pipeline(Device* dev, size_t slot, const uint32_t* code, size_t words, uint32_t bindings,
               uint32_t push_bytes, size_t delegate_index, const char* name, const Pipeline** out);

// Pipelines created in this process so far (tests check that a second
// execute creates none).
size_t vulkan_pipeline_creations();
// Validation-layer messages (warning or error) seen in this process.
size_t vulkan_validation_messages();

}  // namespace vulkan
}  // namespace etr

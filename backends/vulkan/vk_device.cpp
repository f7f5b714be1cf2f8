#include "backends/vulkan/vk_device.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "runtime/platform/log.h"

namespace etr {
namespace vulkan {
namespace {

std::mutex g_mutex;
std::mutex g_queue_mutex;  // held around every vkQueueSubmit on the shared queue
Device g_device;
size_t g_users = 0;
std::atomic<size_t> g_pipelines{0};
std::atomic<size_t> g_validation_messages{0};

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                             VkDebugUtilsMessageTypeFlagsEXT,
                                             const VkDebugUtilsMessengerCallbackDataEXT* data,
                                             void*) {
  if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    g_validation_messages.fetch_add(1);
    ETR_LOG(Error, "VulkanBackend: validation: %s",
            data != nullptr && data->pMessage != nullptr ? data->pMessage : "(no message)");
  }
  return VK_FALSE;
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
}

bool has_layer(const char* name) {
  uint32_t n = 0;
  if (vkEnumerateInstanceLayerProperties(&n, nullptr) != VK_SUCCESS || n == 0) return false;
  std::vector<VkLayerProperties> layers(n);
  if (vkEnumerateInstanceLayerProperties(&n, layers.data()) != VK_SUCCESS) return false;
  for (uint32_t i = 0; i < n; ++i) {
    if (std::strcmp(layers[i].layerName, name) == 0) return true;
  }
  return false;
}

void destroy_pipeline_objects(const Device& dev, Pipeline* p);

void destroy_device_objects(Device* d) {
  for (Pipeline& p : d->pipelines) destroy_pipeline_objects(*d, &p);
  if (d->device != VK_NULL_HANDLE) vkDestroyDevice(d->device, nullptr);
  if (d->messenger != VK_NULL_HANDLE) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(d->instance, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy != nullptr) destroy(d->instance, d->messenger, nullptr);
  }
  if (d->instance != VK_NULL_HANDLE) vkDestroyInstance(d->instance, nullptr);
  *d = Device{};
}

Error create_device(size_t di, Device* d) {
  const char* kValidation = "VK_LAYER_KHRONOS_validation";
  d->validation = env_flag("ETR_VULKAN_VALIDATION") && has_layer(kValidation);
  if (env_flag("ETR_VULKAN_VALIDATION") && !d->validation) {
    ETR_LOG(Info, "VulkanBackend: ETR_VULKAN_VALIDATION is set but %s is not installed",
            kValidation);
  }
  VkApplicationInfo app = {};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "etr";
  app.pEngineName = "etr";
  // Vulkan 1.1 where the loader has it (16-bit storage buffers are core
  // there); 1.0 otherwise.
  uint32_t loader_version = VK_API_VERSION_1_0;
  auto enumerate_version = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
      vkGetInstanceProcAddr(VK_NULL_HANDLE, "vkEnumerateInstanceVersion"));
  if (enumerate_version != nullptr && enumerate_version(&loader_version) != VK_SUCCESS) {
    loader_version = VK_API_VERSION_1_0;
  }
  const bool instance_11 = loader_version >= VK_API_VERSION_1_1;
  app.apiVersion = instance_11 ? VK_API_VERSION_1_1 : VK_API_VERSION_1_0;
  const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  VkInstanceCreateInfo ici = {};
  ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  ici.pApplicationInfo = &app;
  if (d->validation) {
    ici.enabledLayerCount = 1;
    ici.ppEnabledLayerNames = &kValidation;
    ici.enabledExtensionCount = 1;
    ici.ppEnabledExtensionNames = &ext;
  }
  VkResult r = vkCreateInstance(&ici, nullptr, &d->instance);
  ETR_CHECK_OR_FAIL(r == VK_SUCCESS, Error::NotSupported,
                    "VulkanBackend: delegate %zu: no Vulkan driver (vkCreateInstance returned %d; "
                    "install a Vulkan driver, e.g. mesa-vulkan-drivers for lavapipe)",
                    di, static_cast<int>(r));
  if (d->validation) {
    VkDebugUtilsMessengerCreateInfoEXT mci = {};
    mci.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    mci.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mci.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mci.pfnUserCallback = on_validation;
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(d->instance, "vkCreateDebugUtilsMessengerEXT"));
    if (create != nullptr) create(d->instance, &mci, nullptr, &d->messenger);
  }

  uint32_t n = 0;
  r = vkEnumeratePhysicalDevices(d->instance, &n, nullptr);
  ETR_CHECK_OR_FAIL(r == VK_SUCCESS && n > 0, Error::NotSupported,
                    "VulkanBackend: delegate %zu: no Vulkan device (the driver lists none)", di);
  std::vector<VkPhysicalDevice> devices(n);
  r = vkEnumeratePhysicalDevices(d->instance, &n, devices.data());
  ETR_CHECK_OR_FAIL(r == VK_SUCCESS || r == VK_INCOMPLETE, Error::NotSupported,
                    "VulkanBackend: delegate %zu: vkEnumeratePhysicalDevices returned %d", di,
                    static_cast<int>(r));
  long wanted = -1;
  if (const char* env = std::getenv("ETR_VULKAN_DEVICE")) {
    char* end = nullptr;
    wanted = std::strtol(env, &end, 10);
    ETR_CHECK_OR_FAIL(end != env && *end == '\0' && wanted >= 0 && wanted < static_cast<long>(n),
                      Error::NotSupported,
                      "VulkanBackend: delegate %zu: ETR_VULKAN_DEVICE='%s' is not a device index "
                      "(%u devices)",
                      di, env, n);
  }
  bool found = false;
  for (uint32_t i = 0; i < n && !found; ++i) {
    if (wanted >= 0 && static_cast<long>(i) != wanted) continue;
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(devices[i], &nq, nullptr);
    std::vector<VkQueueFamilyProperties> families(nq);
    vkGetPhysicalDeviceQueueFamilyProperties(devices[i], &nq, families.data());
    for (uint32_t q = 0; q < nq; ++q) {
      if ((families[q].queueFlags & VK_QUEUE_COMPUTE_BIT) != 0 && families[q].queueCount > 0) {
        d->physical = devices[i];
        d->queue_family = q;
        d->index = i;
        found = true;
        break;
      }
    }
  }
  ETR_CHECK_OR_FAIL(found, Error::NotSupported,
                    "VulkanBackend: delegate %zu: no Vulkan device with a compute queue%s", di,
                    wanted >= 0 ? " (at ETR_VULKAN_DEVICE)" : "");
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(d->physical, &props);
  d->limits = props.limits;
  std::memcpy(d->name, props.deviceName, sizeof(d->name));
  d->name[sizeof(d->name) - 1] = '\0';
  vkGetPhysicalDeviceMemoryProperties(d->physical, &d->memory);

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci = {};
  qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  qci.queueFamilyIndex = d->queue_family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  // Robust buffer access (every Vulkan 1.0 device has it): a shader access
  // outside its buffer reads zeros or is dropped instead of touching other
  // memory. The planner keeps every access in range; this is the backstop.
  VkPhysicalDeviceFeatures supported;
  vkGetPhysicalDeviceFeatures(d->physical, &supported);
  VkPhysicalDeviceFeatures2 features = {};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.features.robustBufferAccess = supported.robustBufferAccess;
  // 16-bit storage buffers (an fp16 program's tensors stay in fp16 on the
  // device) on a Vulkan 1.1 device that has them.
  VkPhysicalDevice16BitStorageFeatures storage16 = {};
  storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  if (instance_11 && props.apiVersion >= VK_API_VERSION_1_1) {
    VkPhysicalDeviceFeatures2 query = {};
    query.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    query.pNext = &storage16;
    vkGetPhysicalDeviceFeatures2(d->physical, &query);
    d->fp16_storage = storage16.storageBuffer16BitAccess == VK_TRUE;
    storage16 = {};
    storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
    storage16.storageBuffer16BitAccess = d->fp16_storage ? VK_TRUE : VK_FALSE;
    features.pNext = &storage16;
  }
  VkDeviceCreateInfo dci = {};
  dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  // The features go in the chain on Vulkan 1.1, as the plain struct on 1.0.
  if (features.pNext != nullptr) {
    dci.pNext = &features;
  } else {
    dci.pEnabledFeatures = &features.features;
  }
  r = vkCreateDevice(d->physical, &dci, nullptr, &d->device);
  ETR_CHECK_OR_FAIL(r == VK_SUCCESS, Error::NotSupported,
                    "VulkanBackend: delegate %zu: vkCreateDevice on '%s' returned %d", di, d->name,
                    static_cast<int>(r));
  vkGetDeviceQueue(d->device, d->queue_family, 0, &d->queue);
  ETR_LOG(Info, "VulkanBackend: device %u '%s'%s%s", d->index, d->name,
          d->validation ? " with validation" : "",
          d->fp16_storage ? ", 16-bit storage buffers" : "");
  return Error::Ok;
}

bool find_memory_type(const Device& dev, uint32_t type_bits, VkMemoryPropertyFlags want,
                      uint32_t* out) {
  for (uint32_t i = 0; i < dev.memory.memoryTypeCount; ++i) {
    if ((type_bits & (1u << i)) != 0 && (dev.memory.memoryTypes[i].propertyFlags & want) == want) {
      *out = i;
      return true;
    }
  }
  return false;
}

}  // namespace

Error acquire_device(size_t di, Device** out) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_device.device == VK_NULL_HANDLE) {
    const Error e = create_device(di, &g_device);
    if (e != Error::Ok) {
      destroy_device_objects(&g_device);
      return e;
    }
  }
  ++g_users;
  *out = &g_device;
  return Error::Ok;
}

void release_device() {
  std::lock_guard<std::mutex> lock(g_mutex);
  // The device (and its pipelines) stays for the process once created:
  // re-creating it would reload the driver, and drivers (Mesa's lavapipe
  // among them) leak a little each time they are unloaded.
  if (g_users > 0) --g_users;
}

VkResult submit(const Device& dev, VkCommandBuffer commands, VkFence fence) {
  VkSubmitInfo si = {};
  si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &commands;
  std::lock_guard<std::mutex> lock(g_queue_mutex);
  return vkQueueSubmit(dev.queue, 1, &si, fence);
}

Error create_buffer(const Device& dev, VkDeviceSize size, bool host_visible, size_t di,
                    const char* what, Buffer* out) {
  *out = Buffer{};
  VkBufferCreateInfo bci = {};
  bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  // Zero-sized buffers are invalid in Vulkan: an empty tensor gets 4 bytes.
  bci.size = size == 0 ? 4 : (size + 3) / 4 * 4;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
              VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = vkCreateBuffer(dev.device, &bci, nullptr, &out->buffer);
  ETR_CHECK_OR_FAIL(r == VK_SUCCESS, Error::DelegateMemoryAllocationFailed,
                    "VulkanBackend: delegate %zu: vkCreateBuffer (%s, %llu bytes) returned %d", di,
                    what, static_cast<unsigned long long>(bci.size), static_cast<int>(r));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev.device, out->buffer, &req);
  const VkMemoryPropertyFlags want =
      host_visible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                   : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  uint32_t type = 0;
  if (!find_memory_type(dev, req.memoryTypeBits, want, &type) &&
      !find_memory_type(dev, req.memoryTypeBits, 0, &type)) {
    destroy_buffer(dev, out);
    ETR_FAIL(Error::DelegateMemoryAllocationFailed,
             "VulkanBackend: delegate %zu: no memory type for %s", di, what);
  }
  VkMemoryAllocateInfo mai = {};
  mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  r = vkAllocateMemory(dev.device, &mai, nullptr, &out->memory);
  if (r != VK_SUCCESS) {
    destroy_buffer(dev, out);
    ETR_FAIL(Error::DelegateMemoryAllocationFailed,
             "VulkanBackend: delegate %zu: vkAllocateMemory (%s, %llu bytes) returned %d", di, what,
             static_cast<unsigned long long>(req.size), static_cast<int>(r));
  }
  r = vkBindBufferMemory(dev.device, out->buffer, out->memory, 0);
  if (r == VK_SUCCESS && host_visible) {
    r = vkMapMemory(dev.device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped);
  }
  if (r != VK_SUCCESS) {
    destroy_buffer(dev, out);
    ETR_FAIL(Error::DelegateMemoryAllocationFailed,
             "VulkanBackend: delegate %zu: binding or mapping memory for %s returned %d", di, what,
             static_cast<int>(r));
  }
  out->size = bci.size;
  return Error::Ok;
}

void destroy_buffer(const Device& dev, Buffer* b) {
  if (b->mapped != nullptr) vkUnmapMemory(dev.device, b->memory);
  if (b->buffer != VK_NULL_HANDLE) vkDestroyBuffer(dev.device, b->buffer, nullptr);
  if (b->memory != VK_NULL_HANDLE) vkFreeMemory(dev.device, b->memory, nullptr);
  *b = Buffer{};
}

Error create_pipeline(const Device& dev, const uint32_t* code, size_t words, uint32_t bindings,
                      uint32_t push_bytes, size_t di, const char* name, Pipeline* out) {
  *out = Pipeline{};
  out->bindings = bindings;
  out->push_bytes = push_bytes;
  VkShaderModuleCreateInfo smci = {};
  smci.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  smci.codeSize = words * 4;
  smci.pCode = code;
  VkResult r = vkCreateShaderModule(dev.device, &smci, nullptr, &out->module);
  VkDescriptorSetLayoutBinding b[8] = {};
  for (uint32_t i = 0; i < bindings && i < 8; ++i) {
    b[i].binding = i;
    b[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b[i].descriptorCount = 1;
    b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  if (r == VK_SUCCESS) {
    VkDescriptorSetLayoutCreateInfo dl = {};
    dl.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    dl.bindingCount = bindings;
    dl.pBindings = b;
    r = vkCreateDescriptorSetLayout(dev.device, &dl, nullptr, &out->set_layout);
  }
  if (r == VK_SUCCESS) {
    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
    VkPipelineLayoutCreateInfo pl = {};
    pl.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    pl.setLayoutCount = 1;
    pl.pSetLayouts = &out->set_layout;
    pl.pushConstantRangeCount = push_bytes > 0 ? 1 : 0;
    pl.pPushConstantRanges = &range;
    r = vkCreatePipelineLayout(dev.device, &pl, nullptr, &out->layout);
  }
  if (r == VK_SUCCESS) {
    VkComputePipelineCreateInfo cp = {};
    cp.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    cp.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    cp.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    cp.stage.module = out->module;
    cp.stage.pName = "main";
    cp.layout = out->layout;
    r = vkCreateComputePipelines(dev.device, VK_NULL_HANDLE, 1, &cp, nullptr, &out->pipeline);
  }
  if (r != VK_SUCCESS) {
    destroy_pipeline(dev, out);
    ETR_FAIL(Error::DelegateInvalidCompatibility,
             "VulkanBackend: delegate %zu: creating the '%s' compute pipeline returned %d", di,
             name, static_cast<int>(r));
  }
  g_pipelines.fetch_add(1);
  return Error::Ok;
}

void destroy_pipeline(const Device& dev, Pipeline* p) { destroy_pipeline_objects(dev, p); }

Error pipeline(Device* dev, size_t slot, const uint32_t* code, size_t words, uint32_t bindings,
               uint32_t push_bytes, size_t di, const char* name, const Pipeline** out) {
  ETR_CHECK_OR_FAIL(slot < kMaxPipelines, Error::Internal,
                    "VulkanBackend: delegate %zu: pipeline slot %zu out of range", di, slot);
  std::lock_guard<std::mutex> lock(g_mutex);
  Pipeline& p = dev->pipelines[slot];
  if (p.pipeline == VK_NULL_HANDLE) {
    ETR_RETURN_IF_ERROR(create_pipeline(*dev, code, words, bindings, push_bytes, di, name, &p));
  }
  *out = &p;
  return Error::Ok;
}

namespace {

void destroy_pipeline_objects(const Device& dev, Pipeline* p) {
  if (p->pipeline != VK_NULL_HANDLE) vkDestroyPipeline(dev.device, p->pipeline, nullptr);
  if (p->layout != VK_NULL_HANDLE) vkDestroyPipelineLayout(dev.device, p->layout, nullptr);
  if (p->set_layout != VK_NULL_HANDLE) {
    vkDestroyDescriptorSetLayout(dev.device, p->set_layout, nullptr);
  }
  if (p->module != VK_NULL_HANDLE) vkDestroyShaderModule(dev.device, p->module, nullptr);
  *p = Pipeline{};
}

}  // namespace

size_t vulkan_pipeline_creations() { return g_pipelines.load(); }
size_t vulkan_validation_messages() { return g_validation_messages.load(); }

}  // namespace vulkan
}  // namespace etr

#include "backends/vulkan/vulkan_backend.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "backends/vulkan/vk_device.h"
#include "backends/vulkan/vk_graph.h"
#include "backends/vulkan/vk_ops.h"
#include "backends/vulkan/vk_ops_llm.h"
#include "backends/vulkan/vk_shapes.h"
#include "runtime/core/half.h"
#include "runtime/platform/log.h"
#include "runtime/platform/platform.h"

namespace etr {
namespace {

using vulkan::Buffer;
using vulkan::Device;
using vulkan::Dtype;
using vulkan::Graph;
using vulkan::Kind;
using vulkan::kNoId;
using vulkan::Pipeline;
using vulkan::Shader;
using vulkan::Step;
using vulkan::TensorInfo;

// How long execute waits for the GPU before reporting a hang.
constexpr uint64_t kFenceTimeoutNs = uint64_t{60} * 1000 * 1000 * 1000;

struct Delegate {
  size_t index = 0;
  Device* dev = nullptr;
  Graph graph;
  std::vector<Step> steps;
  std::vector<uint32_t> alias;      // value id -> the value whose buffer it uses
  std::vector<int32_t> buffer_of;   // value id -> index in buffers, or -1
  std::vector<Buffer> buffers;      // device storage buffers
  std::vector<Buffer> in_staging;   // per graph input, host-visible
  std::vector<Buffer> out_staging;  // per graph output, host-visible
  // The device's pipelines (shared), by slot: shader, or kNumShaders +
  // shader for its float16-storage variant.
  const Pipeline* pipelines[2 * vulkan::kNumShaders] = {};
  // Whether the program's float16 tensors are float16 on the device.
  bool fp16_storage = false;
  VkDescriptorPool descriptor_pool = VK_NULL_HANDLE;
  std::vector<VkDescriptorSet> sets;  // per step (null for copies)
  VkCommandPool command_pool = VK_NULL_HANDLE;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  std::vector<Tensor*> out_tensors;  // execute's scratch: the output arguments
  // Dynamic programs: whether the steps and the recording match the graph's
  // current shapes (false after a resize failed half-way).
  bool shapes_valid = true;
  std::vector<Step> replanned;  // resize's scratch
  // ETR_VULKAN_PROFILE=1: a timestamp after every step; the device time of
  // each shader (and of the copies) summed over the executes, logged at destroy.
  VkQueryPool queries = VK_NULL_HANDLE;
  std::vector<uint64_t> stamps;
  double profile_ns[vulkan::kNumShaders + 1] = {};
  uint32_t profile_steps[vulkan::kNumShaders + 1] = {};
  size_t profiled = 0;

  ~Delegate() {
    if (dev != nullptr) {
      VkDevice vd = dev->device;
      if (queries != VK_NULL_HANDLE) {
        log_profile();
        vkDestroyQueryPool(vd, queries, nullptr);
      }
      if (fence != VK_NULL_HANDLE) vkDestroyFence(vd, fence, nullptr);
      if (command_pool != VK_NULL_HANDLE) vkDestroyCommandPool(vd, command_pool, nullptr);
      if (descriptor_pool != VK_NULL_HANDLE) vkDestroyDescriptorPool(vd, descriptor_pool, nullptr);
      for (Buffer& b : buffers) vulkan::destroy_buffer(*dev, &b);
      for (Buffer& b : in_staging) vulkan::destroy_buffer(*dev, &b);
      for (Buffer& b : out_staging) vulkan::destroy_buffer(*dev, &b);
      vulkan::release_device();
    }
  }

  void log_profile() const {
    if (profiled == 0) return;
    for (size_t k = 0; k <= vulkan::kNumShaders; ++k) {
      if (profile_steps[k] == 0) continue;
      const char* what = k < vulkan::kNumShaders ? vulkan::shader_info(static_cast<Shader>(k)).name
                                                 : "buffer copies";
      ETR_LOG(Info, "VulkanBackend: delegate %zu: %s: %u steps, %.3f ms per execute (%zu executes)",
              index, what, profile_steps[k], profile_ns[k] / 1e6 / static_cast<double>(profiled),
              profiled);
    }
  }

  const Buffer& buffer(uint32_t value) const {
    return buffers[static_cast<size_t>(buffer_of[alias[value]])];
  }
};

uint32_t resolve(const std::vector<uint32_t>& alias, uint32_t id) {
  // Aliases point at constants, which alias nothing: one hop.
  return alias[id];
}

std::atomic<size_t> g_fp16_delegates{0};

// Whether environment variable `name` is set to `value`.
bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, value) == 0;
}

size_t pipeline_slot(const Step& s) {
  return static_cast<size_t>(s.shader) + (s.fp16 ? vulkan::kNumShaders : 0);
}

// Marks every dispatch whose bound float tensors are float16 on the device
// for its shader's float16-storage variant. NotSupported when a dispatch
// binds float16 and float32 tensors together or its shader has no variant.
Error mark_fp16(const Delegate& d, std::vector<Step>* steps) {
  const Graph& g = d.graph;
  for (Step& s : *steps) {
    if (s.kind != Step::Kind::Dispatch) continue;
    bool half = false, single = false;
    for (uint32_t b = 0; b < s.num_buffers; ++b) {
      const vulkan::TensorInfo* t = g.tensor(s.buffers[b]);
      if (t == nullptr) continue;
      half |= t->device == Dtype::Float16;
      single |= t->device == Dtype::Float32;
    }
    s.fp16 = half;
    if (!half) continue;
    const char* name = vulkan::shader_info(s.shader).name;
    ETR_CHECK_OR_FAIL(!single, Error::NotSupported,
                      "VulkanBackend: delegate %zu: operator %u (%s): shader '%s' binds float16 "
                      "and float32 tensors together",
                      d.index, s.op_index, g.ops[s.op_index].name.c_str(), name);
    ETR_CHECK_OR_FAIL(vulkan::shader_info_fp16(s.shader) != nullptr, Error::NotSupported,
                      "VulkanBackend: delegate %zu: operator %u (%s): shader '%s' has no float16 "
                      "storage variant",
                      d.index, s.op_index, g.ops[s.op_index].name.c_str(), name);
  }
  return Error::Ok;
}

// Plans every operator into `steps` (and d->alias).
Error plan_steps(Delegate* d, std::vector<Step>* steps) {
  const Graph& g = d->graph;
  d->alias.resize(g.values.size());
  for (size_t i = 0; i < d->alias.size(); ++i) d->alias[i] = static_cast<uint32_t>(i);
  vulkan::DispatchLimits limits;
  for (int i = 0; i < 3; ++i) limits.max_groups[i] = d->dev->limits.maxComputeWorkGroupCount[i];
  steps->clear();
  for (const vulkan::Operator& op : g.ops) {
    ETR_RETURN_IF_ERROR(vulkan::plan_operator(g, op, limits, steps, &d->alias));
  }
  return mark_fp16(*d, steps);
}

// Gives every float16 tensor a float16 (or a float32) buffer on the device.
void set_fp16_storage(Graph* g, bool on) {
  for (vulkan::Value& v : g->values) {
    if (v.kind == vulkan::Kind::Tensor && v.tensor.dtype == Dtype::Float16) {
      v.tensor.device = on ? Dtype::Float16 : Dtype::Float32;
    }
  }
}

// Plans every operator; fills d->steps and d->alias. A program with float16
// tensors keeps them in float16 buffers when the device has 16-bit storage
// buffers, ETR_VULKAN_FP16_STORAGE is not 0 and every dispatch has a
// float16-storage shader; otherwise in float32 buffers (as everywhere
// before: shaders compute in float32 either way).
Error plan(Delegate* d) {
  Graph& g = d->graph;
  bool has_fp16 = false;
  for (const vulkan::Value& v : g.values) {
    has_fp16 |= v.kind == vulkan::Kind::Tensor && v.tensor.dtype == Dtype::Float16;
  }
  const bool allowed = !env_is("ETR_VULKAN_FP16_STORAGE", "0");
  if (has_fp16 && d->dev->fp16_storage && allowed) {
    set_fp16_storage(&g, true);
    const Error e = plan_steps(d, &d->steps);
    if (e == Error::Ok) {
      d->fp16_storage = true;
      g_fp16_delegates.fetch_add(1);
      ETR_LOG(Info, "VulkanBackend: delegate %zu: float16 tensors in float16 buffers", d->index);
      return Error::Ok;
    }
    ETR_LOG(Info,
            "VulkanBackend: delegate %zu: float16 tensors in float32 buffers instead (the reason "
            "is logged above)",
            d->index);
    set_fp16_storage(&g, false);
  } else if (has_fp16) {
    ETR_LOG(Info, "VulkanBackend: delegate %zu: float16 tensors in float32 buffers (%s)", d->index,
            !d->dev->fp16_storage ? "the device has no 16-bit storage buffers"
                                  : "ETR_VULKAN_FP16_STORAGE=0");
  }
  return plan_steps(d, &d->steps);
}

// Gives every tensor the steps, inputs and outputs touch a device buffer.
Error place_buffers(Delegate* d) {
  const Graph& g = d->graph;
  d->buffer_of.assign(g.values.size(), -1);
  std::vector<bool> used(g.values.size(), false);
  for (const Step& s : d->steps) {
    for (uint32_t i = 0; i < s.num_buffers; ++i) used[resolve(d->alias, s.buffers[i])] = true;
  }
  // SymInt inputs and outputs (sizes passed between delegates) have no buffer.
  for (uint32_t id : g.inputs) used[id] = g.tensor(id) != nullptr;
  for (uint32_t id : g.outputs) used[resolve(d->alias, id)] = g.tensor(id) != nullptr;
  // Sizes first: a shared memory object is as large as its largest tensor.
  std::vector<uint64_t> mem_obj_bytes(g.values.size(), 0);
  std::vector<int32_t> mem_obj_buffer(g.values.size(), -1);
  for (size_t id = 0; id < g.values.size(); ++id) {
    const TensorInfo* t = g.tensor(static_cast<uint32_t>(id));
    if (!used[id] || t == nullptr || t->constant_id >= 0 || t->mem_obj_id < 0) continue;
    uint64_t& b = mem_obj_bytes[static_cast<size_t>(t->mem_obj_id)];
    if (t->max_device_nbytes() > b) b = t->max_device_nbytes();
  }
  for (size_t id = 0; id < g.values.size(); ++id) {
    const TensorInfo* t = g.tensor(static_cast<uint32_t>(id));
    if (!used[id]) continue;
    if (t == nullptr) {
      ETR_FAIL(Error::InvalidProgram,
               "VulkanBackend: delegate %zu: value %zu is bound as a tensor "
               "but is a %s",
               d->index, id, vulkan::to_string(g.values[id].kind));
    }
    const bool shared = t->constant_id < 0 && t->mem_obj_id >= 0;
    if (shared && mem_obj_buffer[static_cast<size_t>(t->mem_obj_id)] >= 0) {
      d->buffer_of[id] = mem_obj_buffer[static_cast<size_t>(t->mem_obj_id)];
      continue;
    }
    // Sized for the tensor's upper bounds: a dynamic shape never reallocates.
    const uint64_t bytes =
        shared ? mem_obj_bytes[static_cast<size_t>(t->mem_obj_id)] : t->max_device_nbytes();
    // A shader binds the whole buffer: it must fit one storage-buffer binding.
    ETR_CHECK_OR_FAIL(bytes <= d->dev->limits.maxStorageBufferRange, Error::NotSupported,
                      "VulkanBackend: delegate %zu: value %zu needs a buffer of %llu bytes; the "
                      "device binds at most %u",
                      d->index, id, static_cast<unsigned long long>(bytes),
                      d->dev->limits.maxStorageBufferRange);
    Buffer b;
    ETR_RETURN_IF_ERROR(vulkan::create_buffer(*d->dev, bytes, false, d->index, "a tensor", &b));
    d->buffers.push_back(b);
    d->buffer_of[id] = static_cast<int32_t>(d->buffers.size() - 1);
    if (shared) mem_obj_buffer[static_cast<size_t>(t->mem_obj_id)] = d->buffer_of[id];
  }
  return Error::Ok;
}

Error create_commands(Delegate* d) {
  VkDevice vd = d->dev->device;
  VkCommandPoolCreateInfo cpi = {};
  cpi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  cpi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  cpi.queueFamilyIndex = d->dev->queue_family;
  VkResult r = vkCreateCommandPool(vd, &cpi, nullptr, &d->command_pool);
  if (r == VK_SUCCESS) {
    VkCommandBufferAllocateInfo cai = {};
    cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cai.commandPool = d->command_pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    r = vkAllocateCommandBuffers(vd, &cai, &d->commands);
  }
  if (r == VK_SUCCESS) {
    VkFenceCreateInfo fci = {};
    fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    r = vkCreateFence(vd, &fci, nullptr, &d->fence);
  }
  ETR_CHECK_OR_FAIL(r == VK_SUCCESS, Error::DelegateMemoryAllocationFailed,
                    "VulkanBackend: delegate %zu: creating the command buffer or fence returned %d",
                    d->index, static_cast<int>(r));
  return Error::Ok;
}

void barrier(VkCommandBuffer cb, VkPipelineStageFlags src, VkAccessFlags src_access,
             VkPipelineStageFlags dst, VkAccessFlags dst_access) {
  VkMemoryBarrier mb = {};
  mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  mb.srcAccessMask = src_access;
  mb.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(cb, src, dst, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

Error submit_and_wait(Delegate* d) {
  VkResult r = vulkan::submit(*d->dev, d->commands, d->fence);
  ETR_CHECK_OR_FAIL(r == VK_SUCCESS, Error::Internal,
                    "VulkanBackend: delegate %zu: vkQueueSubmit returned %d", d->index,
                    static_cast<int>(r));
  r = vkWaitForFences(d->dev->device, 1, &d->fence, VK_TRUE, kFenceTimeoutNs);
  ETR_CHECK_OR_FAIL(r == VK_SUCCESS, Error::Internal,
                    "VulkanBackend: delegate %zu: waiting for the GPU returned %d%s", d->index,
                    static_cast<int>(r), r == VK_TIMEOUT ? " (timeout)" : "");
  r = vkResetFences(d->dev->device, 1, &d->fence);
  ETR_CHECK_OR_FAIL(r == VK_SUCCESS, Error::Internal,
                    "VulkanBackend: delegate %zu: vkResetFences returned %d", d->index,
                    static_cast<int>(r));
  return Error::Ok;
}

// Uploads every constant that has a buffer through one staging buffer, with
// a one-off recording of the command buffer.
Error upload_constants(Delegate* d) {
  const Graph& g = d->graph;
  uint64_t total = 0;
  for (size_t id = 0; id < g.values.size(); ++id) {
    const TensorInfo* t = g.tensor(static_cast<uint32_t>(id));
    if (t == nullptr || t->constant_id < 0 || d->buffer_of[id] < 0) continue;
    total += (t->device_nbytes() + 15) / 16 * 16;
  }
  if (total == 0) return Error::Ok;
  Buffer staging;
  ETR_RETURN_IF_ERROR(
      vulkan::create_buffer(*d->dev, total, true, d->index, "the constants' staging", &staging));
  VkCommandBufferBeginInfo bi = {};
  bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkBeginCommandBuffer(d->commands, &bi);
  uint64_t offset = 0;
  for (size_t id = 0; id < g.values.size(); ++id) {
    const TensorInfo* t = g.tensor(static_cast<uint32_t>(id));
    if (t == nullptr || t->constant_id < 0 || d->buffer_of[id] < 0) continue;
    const vulkan::Constant& c = g.constants[static_cast<size_t>(t->constant_id)];
    const uint64_t n = t->device_nbytes();
    if (n == 0) continue;
    uint8_t* dst = static_cast<uint8_t*>(staging.mapped) + offset;
    if (t->dtype == Dtype::Float16 && t->device == Dtype::Float32) {  // widened
      for (uint64_t e = 0; e < t->numel; ++e) {
        uint16_t h;
        std::memcpy(&h, c.data + 2 * e, 2);
        const float f = internal::half_bits_to_float(h);
        std::memcpy(dst + 4 * e, &f, 4);
      }
    } else if (t->dtype == Dtype::Bool && t->device == Dtype::Float32) {  // 0.0 or 1.0
      for (uint64_t e = 0; e < t->numel; ++e) {
        const float f = c.data[e] != 0 ? 1.0f : 0.0f;
        std::memcpy(dst + 4 * e, &f, 4);
      }
    } else {
      std::memcpy(dst, c.data, n);
    }
    VkBufferCopy region = {offset, 0, n};
    vkCmdCopyBuffer(d->commands, staging.buffer,
                    d->buffers[static_cast<size_t>(d->buffer_of[id])].buffer, 1, &region);
    offset += (n + 15) / 16 * 16;
  }
  vkEndCommandBuffer(d->commands);
  const Error e = submit_and_wait(d);
  vkResetCommandBuffer(d->commands, 0);
  vulkan::destroy_buffer(*d->dev, &staging);
  return e;
}

Error create_pipelines_and_sets(Delegate* d) {
  bool used[2 * vulkan::kNumShaders] = {};
  uint32_t num_sets = 0, num_descriptors = 0;
  for (const Step& s : d->steps) {
    if (s.kind != Step::Kind::Dispatch) continue;
    used[pipeline_slot(s)] = true;
    ++num_sets;
    num_descriptors += s.num_buffers;
  }
  for (size_t i = 0; i < 2 * vulkan::kNumShaders; ++i) {
    if (!used[i]) continue;
    const Shader shader = static_cast<Shader>(i % vulkan::kNumShaders);
    // mark_fp16 checked that a float16 step's variant exists.
    const vulkan::ShaderInfo& info =
        i < vulkan::kNumShaders ? vulkan::shader_info(shader) : *vulkan::shader_info_fp16(shader);
    ETR_CHECK_OR_FAIL(info.push_bytes <= d->dev->limits.maxPushConstantsSize, Error::NotSupported,
                      "VulkanBackend: delegate %zu: shader '%s' needs %u bytes of push constants "
                      "(the device has %u)",
                      d->index, info.name, info.push_bytes, d->dev->limits.maxPushConstantsSize);
    ETR_RETURN_IF_ERROR(vulkan::pipeline(d->dev, i, info.code, info.words, info.bindings,
                                         info.push_bytes, d->index, info.name, &d->pipelines[i]));
  }
  d->sets.assign(d->steps.size(), VK_NULL_HANDLE);
  if (num_sets == 0) return Error::Ok;
  VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, num_descriptors};
  VkDescriptorPoolCreateInfo dpi = {};
  dpi.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  dpi.maxSets = num_sets;
  dpi.poolSizeCount = 1;
  dpi.pPoolSizes = &size;
  VkResult r = vkCreateDescriptorPool(d->dev->device, &dpi, nullptr, &d->descriptor_pool);
  ETR_CHECK_OR_FAIL(r == VK_SUCCESS, Error::DelegateMemoryAllocationFailed,
                    "VulkanBackend: delegate %zu: vkCreateDescriptorPool returned %d", d->index,
                    static_cast<int>(r));
  for (size_t i = 0; i < d->steps.size(); ++i) {
    const Step& s = d->steps[i];
    if (s.kind != Step::Kind::Dispatch) continue;
    const Pipeline& p = *d->pipelines[pipeline_slot(s)];
    VkDescriptorSetAllocateInfo ai = {};
    ai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    ai.descriptorPool = d->descriptor_pool;
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &p.set_layout;
    r = vkAllocateDescriptorSets(d->dev->device, &ai, &d->sets[i]);
    ETR_CHECK_OR_FAIL(r == VK_SUCCESS, Error::DelegateMemoryAllocationFailed,
                      "VulkanBackend: delegate %zu: vkAllocateDescriptorSets returned %d", d->index,
                      static_cast<int>(r));
    VkDescriptorBufferInfo infos[6];
    VkWriteDescriptorSet writes[6];
    for (uint32_t b = 0; b < s.num_buffers; ++b) {
      infos[b] = {d->buffer(s.buffers[b]).buffer, 0, VK_WHOLE_SIZE};
      writes[b] = {};
      writes[b].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      writes[b].dstSet = d->sets[i];
      writes[b].dstBinding = b;
      writes[b].descriptorCount = 1;
      writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[b].pBufferInfo = &infos[b];
    }
    vkUpdateDescriptorSets(d->dev->device, s.num_buffers, writes, 0, nullptr);
  }
  return Error::Ok;
}

// One-off work at init that the first execute would otherwise do, in one
// submission:
//  - every buffer that holds no constant is filled with zeros: its memory is
//    touched (on a CPU driver such as Mesa's lavapipe, device memory is host
//    memory, paged in at its first write) and starts defined;
//  - every pipeline the delegate uses is dispatched once with zero push
//    constants (every shader then returns at once, touching no memory):
//    drivers that compile a pipeline's machine code at its first dispatch
//    rather than at its creation (lavapipe JIT-compiles with LLVM there) do
//    that now.
// ETR_VULKAN_WARM_UP=0 leaves it out (to measure what it saves).
Error warm_up(Delegate* d) {
  bool done[2 * vulkan::kNumShaders] = {};
  const uint32_t zeros[32] = {};
  VkCommandBufferBeginInfo bi = {};
  bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkBeginCommandBuffer(d->commands, &bi);
  std::vector<bool> holds_constant(d->buffers.size(), false);
  for (size_t id = 0; id < d->buffer_of.size(); ++id) {
    const vulkan::TensorInfo* t = d->graph.tensor(static_cast<uint32_t>(id));
    if (t != nullptr && t->constant_id >= 0 && d->buffer_of[id] >= 0) {
      holds_constant[static_cast<size_t>(d->buffer_of[id])] = true;
    }
  }
  bool any = false;
  for (size_t b = 0; b < d->buffers.size(); ++b) {
    if (holds_constant[b] || d->buffers[b].size < 4) continue;
    vkCmdFillBuffer(d->commands, d->buffers[b].buffer, 0, VK_WHOLE_SIZE, 0);
    any = true;
  }
  barrier(d->commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  for (size_t i = 0; i < d->steps.size(); ++i) {
    const Step& s = d->steps[i];
    if (s.kind != Step::Kind::Dispatch || done[pipeline_slot(s)]) continue;
    done[pipeline_slot(s)] = true;
    any = true;
    const Pipeline& p = *d->pipelines[pipeline_slot(s)];
    vkCmdBindPipeline(d->commands, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
    vkCmdBindDescriptorSets(d->commands, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1,
                            &d->sets[i], 0, nullptr);
    vkCmdPushConstants(d->commands, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, p.push_bytes, zeros);
    vkCmdDispatch(d->commands, 1, 1, 1);
  }
  vkEndCommandBuffer(d->commands);
  const Error e = any ? submit_and_wait(d) : Error::Ok;
  vkResetCommandBuffer(d->commands, 0);
  return e;
}

// Host-side element type of an input/output's staging copy.
ScalarType staging_type(Dtype d) {
  switch (d) {
    case Dtype::Float32: return ScalarType::Float;
    case Dtype::Float16: return ScalarType::Half;
    case Dtype::Int32: return ScalarType::Int;
    case Dtype::Int8: return ScalarType::Char;
    case Dtype::UInt8: return ScalarType::Byte;
    case Dtype::Bool: return ScalarType::Bool;
    default: return static_cast<ScalarType>(-1);
  }
}

// Whether an input/output's staging buffer can hold its device elements for
// the host: the same dtype, float16 on the device for float32 on the host,
// or float32 0/1 on the device for bool on the host (execute converts while
// copying).
bool staged_as_is(const vulkan::TensorInfo& t) {
  if (t.device == Dtype::Float16 && t.staging == Dtype::Float32) return true;
  if (t.device == Dtype::Float32 && t.staging == Dtype::Bool) return true;
  return t.device == t.staging && staging_type(t.device) != static_cast<ScalarType>(-1);
}

// Creates the host-visible staging buffer of every input and output, sized
// for its upper bounds (in device elements).
Error create_staging(Delegate* d) {
  const Graph& g = d->graph;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    if (g.tensor(g.inputs[i]) == nullptr) {  // a SymInt: no staging
      d->in_staging.push_back(Buffer{});
      continue;
    }
    const TensorInfo& t = *g.tensor(g.inputs[i]);
    ETR_CHECK_OR_FAIL(staged_as_is(t), Error::NotSupported,
                      "VulkanBackend: delegate %zu: input %zu: dtype %s staged as %s is not "
                      "supported",
                      d->index, i, vulkan::to_string(t.dtype), vulkan::to_string(t.staging));
    Buffer b;
    ETR_RETURN_IF_ERROR(vulkan::create_buffer(*d->dev, t.max_device_nbytes(), true, d->index,
                                              "an input's staging", &b));
    d->in_staging.push_back(b);
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    if (g.tensor(g.outputs[i]) == nullptr) {  // a SymInt: no staging
      d->out_staging.push_back(Buffer{});
      continue;
    }
    const TensorInfo& t = *g.tensor(g.outputs[i]);
    ETR_CHECK_OR_FAIL(staged_as_is(t), Error::NotSupported,
                      "VulkanBackend: delegate %zu: output %zu: dtype %s staged as %s is not "
                      "supported",
                      d->index, i, vulkan::to_string(t.dtype), vulkan::to_string(t.staging));
    Buffer b;
    ETR_RETURN_IF_ERROR(vulkan::create_buffer(*d->dev, t.max_device_nbytes(), true, d->index,
                                              "an output's staging", &b));
    d->out_staging.push_back(b);
  }
  return Error::Ok;
}

// Records the command buffer every execute submits (again after a resize).
Error record(Delegate* d) {
  const Graph& g = d->graph;
  VkCommandBuffer cb = d->commands;
  VkCommandBufferBeginInfo bi = {};
  bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  vkBeginCommandBuffer(cb, &bi);
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const TensorInfo* t = g.tensor(g.inputs[i]);
    const uint64_t n = t == nullptr ? 0 : t->device_nbytes();
    if (n == 0) continue;
    VkBufferCopy region = {0, 0, n};
    vkCmdCopyBuffer(cb, d->in_staging[i].buffer, d->buffer(g.inputs[i]).buffer, 1, &region);
  }
  barrier(cb, VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
              VK_ACCESS_TRANSFER_WRITE_BIT);
  const VkPipelineStageFlags work =
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  if (d->queries != VK_NULL_HANDLE) {
    vkCmdResetQueryPool(cb, d->queries, 0, static_cast<uint32_t>(d->steps.size() + 1));
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d->queries, 0);
  }
  const VkAccessFlags all = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                            VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  for (size_t i = 0; i < d->steps.size(); ++i) {
    const Step& s = d->steps[i];
    if (s.kind == Step::Kind::CheckInput) continue;  // execute checks it on the host
    if (s.kind == Step::Kind::Copy) {
      const Buffer& dst = d->buffer(s.buffers[0]);
      const Buffer& src = d->buffer(s.buffers[1]);
      // A view whose input and output share one memory object is already in place.
      if (dst.buffer != src.buffer) {
        VkBufferCopy region = {0, 0, s.copy_bytes};
        vkCmdCopyBuffer(cb, src.buffer, dst.buffer, 1, &region);
      }
    } else {
      const Pipeline& p = *d->pipelines[pipeline_slot(s)];
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &d->sets[i], 0,
                              nullptr);
      vkCmdPushConstants(cb, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, p.push_bytes, s.push);
      vkCmdDispatch(cb, s.groups[0], s.groups[1], s.groups[2]);
    }
    barrier(cb, work, all, work, all);
    if (d->queries != VK_NULL_HANDLE) {
      vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d->queries,
                          static_cast<uint32_t>(i + 1));
    }
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const TensorInfo* t = g.tensor(g.outputs[i]);
    const uint64_t n = t == nullptr ? 0 : t->device_nbytes();
    if (n == 0) continue;
    VkBufferCopy region = {0, 0, n};
    vkCmdCopyBuffer(cb, d->buffer(g.outputs[i]).buffer, d->out_staging[i].buffer, 1, &region);
  }
  barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  const VkResult r = vkEndCommandBuffer(cb);
  ETR_CHECK_OR_FAIL(r == VK_SUCCESS, Error::Internal,
                    "VulkanBackend: delegate %zu: recording the command buffer returned %d",
                    d->index, static_cast<int>(r));
  return Error::Ok;
}

Error build(Delegate* d, BackendInitContext& ctx, FreeableBuffer* processed) {
  ETR_RETURN_IF_ERROR(vulkan::parse_graph(static_cast<const uint8_t*>(processed->data()),
                                          processed->size(), ctx.named_data, d->index, &d->graph));
  ETR_RETURN_IF_ERROR(vulkan::acquire_device(d->index, &d->dev));
  vulkan::retype_q8csw_outputs(&d->graph);
  // A dynamic program's symbolic sizes, computed for the upper bounds.
  if (d->graph.dynamic) {
    vulkan::infer_symint_inputs(&d->graph);
    ETR_RETURN_IF_ERROR(vulkan::propagate_shapes(&d->graph));
  }
  ETR_RETURN_IF_ERROR(plan(d));
  ETR_RETURN_IF_ERROR(place_buffers(d));
  ETR_RETURN_IF_ERROR(create_commands(d));
  ETR_RETURN_IF_ERROR(upload_constants(d));
  // The constants live on the device now: the payload and the named data go.
  for (vulkan::Constant& c : d->graph.constants) c = vulkan::Constant{};
  d->graph.named_buffers.clear();
  processed->release();
  ETR_RETURN_IF_ERROR(create_pipelines_and_sets(d));
  if (!env_is("ETR_VULKAN_WARM_UP", "0")) ETR_RETURN_IF_ERROR(warm_up(d));
  d->out_tensors.assign(d->graph.outputs.size(), nullptr);
  ETR_RETURN_IF_ERROR(create_staging(d));
  const char* profile = std::getenv("ETR_VULKAN_PROFILE");
  if (profile != nullptr && profile[0] == '1' && d->dev->limits.timestampComputeAndGraphics) {
    VkQueryPoolCreateInfo qi = {};
    qi.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = static_cast<uint32_t>(d->steps.size() + 1);
    if (vkCreateQueryPool(d->dev->device, &qi, nullptr, &d->queries) != VK_SUCCESS) {
      d->queries = VK_NULL_HANDLE;  // profiling is best effort
    }
    d->stamps.assign(d->steps.size() + 1, 0);
  }
  return record(d);
}

// Adds the last execute's step times to the profile (ETR_VULKAN_PROFILE).
void collect_profile(Delegate* d) {
  const uint32_t n = static_cast<uint32_t>(d->steps.size() + 1);
  if (vkGetQueryPoolResults(d->dev->device, d->queries, 0, n, n * sizeof(uint64_t),
                            d->stamps.data(), sizeof(uint64_t),
                            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS) {
    return;
  }
  const double period = d->dev->limits.timestampPeriod;
  for (size_t i = 0; i < d->steps.size(); ++i) {
    const Step& s = d->steps[i];
    const size_t k =
        s.kind == Step::Kind::Copy ? vulkan::kNumShaders : static_cast<size_t>(s.shader);
    d->profile_ns[k] += static_cast<double>(d->stamps[i + 1] - d->stamps[i]) * period;
    if (d->profiled == 0) ++d->profile_steps[k];
  }
  ++d->profiled;
}

// Whether host tensor `t` has the dims of `info`.
bool same_shape(const Tensor& t, const TensorInfo& info) {
  if (static_cast<uint32_t>(t.dim()) != info.ndim) return false;
  for (uint32_t i = 0; i < info.ndim; ++i) {
    if (static_cast<uint64_t>(t.size(i)) != info.dims[i]) return false;
  }
  return true;
}

// A dynamic program whose inputs changed shape: checks them against the
// exported bounds, propagates the shapes, plans every operator again and
// re-records the command buffer. The new plan must use the same shaders and
// buffers step by step (only push constants, dispatch and copy sizes
// change): nothing is allocated on the device and no pipeline is created.
Error resize(Delegate* d, Span<EValue*> args) {
  Graph& g = d->graph;
  bool changed = !d->shapes_valid;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    EValue* v = args[i];
    vulkan::Value& in = g.values[g.inputs[i]];
    if (in.kind == vulkan::Kind::SymInt) {
      // A size computed by the caller (an earlier delegate or the CPU).
      if (v == nullptr || !v->is_int()) {
        ETR_FAIL(Error::InvalidArgument, "VulkanBackend: delegate %zu: input %zu is not an int",
                 d->index, i);
      }
      if (v->to_int() < 0 || v->to_int() > static_cast<int64_t>(vulkan::kMaxNumel)) {
        ETR_FAIL(Error::InvalidArgument,
                 "VulkanBackend: delegate %zu: input %zu (a size) is %lld, out of range", d->index,
                 i, static_cast<long long>(v->to_int()));
      }
      if (v->to_int() != in.int_value) {
        in.int_value = v->to_int();
        d->shapes_valid = false;
        changed = true;
      }
      continue;
    }
    if (v == nullptr || !v->is_tensor()) continue;  // reported by arg_tensor
    const Tensor& t = v->to_tensor();
    TensorInfo& info = g.values[g.inputs[i]].tensor;
    if (same_shape(t, info)) continue;
    if (static_cast<uint32_t>(t.dim()) != info.ndim) {
      ETR_FAIL(Error::InvalidArgument,
               "VulkanBackend: delegate %zu: input %zu has %d dims, the program has %u", d->index,
               i, static_cast<int>(t.dim()), info.ndim);
    }
    for (uint32_t k = 0; k < info.ndim; ++k) {
      const int64_t s = t.size(k);
      if (s < 1 || s > static_cast<int64_t>(info.max_dims[k])) {
        ETR_FAIL(Error::InvalidArgument,
                 "VulkanBackend: delegate %zu: input %zu: dim %u is %lld, outside the exported "
                 "bounds 1..%u",
                 d->index, i, k, static_cast<long long>(s), info.max_dims[k]);
      }
    }
    // Within bounds: the graph takes the new shape (and is stale until the
    // plan below succeeds).
    d->shapes_valid = false;
    uint64_t numel = 1;
    for (uint32_t k = 0; k < info.ndim; ++k) {
      info.dims[k] = static_cast<uint32_t>(t.size(k));
      numel *= info.dims[k];
    }
    info.numel = numel;
    changed = true;
  }
  if (!changed) return Error::Ok;
  ETR_RETURN_IF_ERROR(vulkan::propagate_shapes(&g));
  vulkan::DispatchLimits limits;
  for (int i = 0; i < 3; ++i) limits.max_groups[i] = d->dev->limits.maxComputeWorkGroupCount[i];
  d->replanned.clear();
  for (const vulkan::Operator& op : g.ops) {
    ETR_RETURN_IF_ERROR(vulkan::plan_operator(g, op, limits, &d->replanned, &d->alias));
  }
  ETR_RETURN_IF_ERROR(mark_fp16(*d, &d->replanned));
  bool same = d->replanned.size() == d->steps.size();
  for (size_t i = 0; same && i < d->steps.size(); ++i) {
    const Step& a = d->steps[i];
    const Step& b = d->replanned[i];
    same = a.kind == b.kind && a.shader == b.shader && a.fp16 == b.fp16 &&
           a.num_buffers == b.num_buffers &&
           std::memcmp(a.buffers, b.buffers, sizeof(a.buffers)) == 0;
  }
  if (!same) {
    ETR_FAIL(Error::NotSupported,
             "VulkanBackend: delegate %zu: at these input shapes the operators plan different "
             "steps than at the exported bounds (an empty tensor?)",
             d->index);
  }
  d->steps.swap(d->replanned);
  VkResult r = vkResetCommandBuffer(d->commands, 0);
  ETR_CHECK_OR_FAIL(r == VK_SUCCESS, Error::Internal,
                    "VulkanBackend: delegate %zu: vkResetCommandBuffer returned %d", d->index,
                    static_cast<int>(r));
  ETR_RETURN_IF_ERROR(record(d));
  d->shapes_valid = true;
  return Error::Ok;
}

// Gives output tensor `t` the graph output's current dims.
Error resize_output(const Delegate& d, Tensor* t, const TensorInfo& info, size_t i) {
  if (same_shape(*t, info)) return Error::Ok;
  int64_t sizes[vulkan::kMaxDims];
  for (uint32_t k = 0; k < info.ndim; ++k) sizes[k] = info.dims[k];
  if (resize_tensor(*t, Span<const int64_t>(sizes, info.ndim)) != Error::Ok) {
    ETR_FAIL(Error::InvalidArgument,
             "VulkanBackend: delegate %zu: output %zu cannot take the delegate's output shape "
             "(%llu elements)",
             d.index, i, static_cast<unsigned long long>(info.numel));
  }
  return Error::Ok;
}

// The exporter narrows 64-bit inputs and outputs to 32 bits on the device
// (staging int32 for an int64 tensor, float32 for float64); the host side
// converts while copying.
bool widened(Dtype staging, ScalarType host) {
  return (staging == Dtype::Int32 && host == ScalarType::Long) ||
         (staging == Dtype::Float32 && host == ScalarType::Double);
}

// Copies n elements between a host tensor and a staging buffer, narrowing
// (to_staging) or widening 64-bit host elements, or converting float32 host
// elements from and to a float16 device tensor; a plain copy otherwise.
void copy_staging(const Tensor& host, Dtype device, void* staging, bool to_staging) {
  const size_t n = static_cast<size_t>(host.numel());
  if (device == Dtype::Float16 && host.dtype() == ScalarType::Float) {
    float* h = static_cast<float*>(host.mutable_data());
    uint16_t* g = static_cast<uint16_t*>(staging);
    for (size_t i = 0; i < n; ++i) {
      if (to_staging) {
        g[i] = internal::float_to_half_bits(h[i]);
      } else {
        h[i] = internal::half_bits_to_float(g[i]);
      }
    }
  } else if (device == Dtype::Float32 && host.dtype() == ScalarType::Bool) {
    bool* h = static_cast<bool*>(host.mutable_data());
    float* g = static_cast<float*>(staging);
    for (size_t i = 0; i < n; ++i) {
      if (to_staging) {
        g[i] = h[i] ? 1.0f : 0.0f;
      } else {
        h[i] = g[i] != 0.0f;
      }
    }
  } else if (host.dtype() == ScalarType::Long) {
    int64_t* h = static_cast<int64_t*>(host.mutable_data());
    int32_t* g = static_cast<int32_t*>(staging);
    for (size_t i = 0; i < n; ++i) {
      if (to_staging) {
        g[i] = static_cast<int32_t>(h[i]);
      } else {
        h[i] = g[i];
      }
    }
  } else if (host.dtype() == ScalarType::Double) {
    double* h = static_cast<double*>(host.mutable_data());
    float* g = static_cast<float*>(staging);
    for (size_t i = 0; i < n; ++i) {
      if (to_staging) {
        g[i] = static_cast<float>(h[i]);
      } else {
        h[i] = g[i];
      }
    }
  } else if (host.nbytes() > 0) {
    if (to_staging) {
      std::memcpy(staging, host.const_data(), host.nbytes());
    } else {
      std::memcpy(host.mutable_data(), staging, host.nbytes());
    }
  }
}

// Checks an argument tensor against a graph input/output and returns it.
Result<Tensor*> arg_tensor(const Delegate& d, Span<EValue*> args, size_t a, uint32_t id,
                           const char* what, size_t i) {
  EValue* v = args[a];
  if (v == nullptr || !v->is_tensor()) {
    ETR_FAIL(Error::InvalidArgument, "VulkanBackend: delegate %zu: %s %zu is not a tensor", d.index,
             what, i);
  }
  Tensor& t = v->to_tensor();
  const TensorInfo& info = *d.graph.tensor(id);
  if (t.dtype() != staging_type(info.staging) && !widened(info.staging, t.dtype())) {
    ETR_FAIL(Error::InvalidArgument,
             "VulkanBackend: delegate %zu: %s %zu has dtype %d, the "
             "program says %s",
             d.index, what, i, static_cast<int>(t.dtype()), vulkan::to_string(info.staging));
  }
  if (static_cast<uint64_t>(t.numel()) != info.numel) {
    ETR_FAIL(Error::InvalidArgument,
             "VulkanBackend: delegate %zu: %s %zu has %lld elements, the program says %llu",
             d.index, what, i, static_cast<long long>(t.numel()),
             static_cast<unsigned long long>(info.numel));
  }
  return &t;
}

// The CheckInput steps: an int element of a graph input that a shader uses
// as a position must be in range (the shaders only clamp it).
Error check_inputs(const Delegate& d, Span<EValue*> args) {
  const Graph& g = d.graph;
  for (const Step& s : d.steps) {
    if (s.kind != Step::Kind::CheckInput) continue;
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      if (g.inputs[i] != s.buffers[0]) continue;
      const Tensor& t = args[i]->to_tensor();  // checked by arg_tensor
      const size_t e = s.push[0];
      if (e >= static_cast<size_t>(t.numel())) break;
      int64_t v = 0;
      if (t.dtype() == ScalarType::Long) {
        v = static_cast<const int64_t*>(t.const_data())[e];
      } else if (t.dtype() == ScalarType::Int) {
        v = static_cast<const int32_t*>(t.const_data())[e];
      } else {
        break;
      }
      const int64_t lo = static_cast<int32_t>(s.push[1]);
      const int64_t hi = static_cast<int32_t>(s.push[2]);
      if (v < lo || v > hi) {
        ETR_FAIL(Error::InvalidArgument,
                 "VulkanBackend: delegate %zu: operator %u (%s): input %zu element %zu is %lld; "
                 "it must be in [%lld, %lld]",
                 d.index, s.op_index, g.ops[s.op_index].name.c_str(), i, e,
                 static_cast<long long>(v), static_cast<long long>(lo), static_cast<long long>(hi));
      }
    }
  }
  return Error::Ok;
}

class VulkanBackend final : public BackendInterface {
 public:
  bool is_available() const override {
    static const bool available = [] {
      Device* dev = nullptr;
      if (vulkan::acquire_device(0, &dev) != Error::Ok) return false;
      vulkan::release_device();
      return true;
    }();
    return available;
  }

  Result<DelegateHandle*> init(BackendInitContext& ctx, FreeableBuffer* processed,
                               Span<const CompileSpec> specs) const override {
    (void)specs;
    void* mem = platform_allocate(sizeof(Delegate), alignof(Delegate));
    if (mem == nullptr) {
      ETR_FAIL(Error::DelegateMemoryAllocationFailed, "VulkanBackend: delegate %zu: out of memory",
               ctx.delegate_index);
    }
    Delegate* d = new (mem) Delegate();
    d->index = ctx.delegate_index;
    const Error err = build(d, ctx, processed);
    if (err != Error::Ok) {
      destroy(d);
      return err;
    }
    size_t tensors = 0;
    for (int32_t b : d->buffer_of) tensors += b >= 0 ? 1 : 0;
    ETR_LOG(Info,
            "VulkanBackend: delegate %zu: %zu operators as %zu steps on '%s'; %zu tensors in %zu "
            "buffers",
            d->index, d->graph.ops.size(), d->steps.size(), d->dev->name, tensors,
            d->buffers.size());
    return static_cast<DelegateHandle*>(d);
  }

  Error execute(BackendExecutionContext& ctx, DelegateHandle* handle,
                Span<EValue*> args) const override {
    (void)ctx;
    Delegate* d = static_cast<Delegate*>(handle);
    if (d == nullptr) ETR_FAIL(Error::DelegateInvalidHandle, "VulkanBackend: null delegate");
    const Graph& g = d->graph;
    if (args.size() != g.inputs.size() + g.outputs.size()) {
      ETR_FAIL(Error::InvalidArgument,
               "VulkanBackend: delegate %zu: %zu arguments, expected %zu inputs and %zu outputs",
               d->index, args.size(), g.inputs.size(), g.outputs.size());
    }
    // Any program may get inputs of new dims within its bounds: one exported
    // with dynamic dims has SymInts only where a size is computed (a CNN
    // over a dynamic height and width has none); the method lets through
    // only what its own tensors allow.
    ETR_RETURN_IF_ERROR(resize(d, args));
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      if (g.tensor(g.inputs[i]) == nullptr) continue;  // a SymInt, taken by resize
      Result<Tensor*> t = arg_tensor(*d, args, i, g.inputs[i], "input", i);
      if (!t.ok()) return t.error();
      copy_staging(**t, g.tensor(g.inputs[i])->device, d->in_staging[i].mapped, true);
    }
    ETR_RETURN_IF_ERROR(check_inputs(*d, args));
    std::vector<Tensor*>& outs = d->out_tensors;
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      EValue* v = args[g.inputs.size() + i];
      if (g.tensor(g.outputs[i]) == nullptr) {  // a SymInt the shapes computed
        if (v == nullptr || !v->is_int()) {
          ETR_FAIL(Error::InvalidArgument, "VulkanBackend: delegate %zu: output %zu is not an int",
                   d->index, i);
        }
        *v = EValue(static_cast<int64_t>(g.values[g.outputs[i]].int_value));
        outs[i] = nullptr;
        continue;
      }
      if (v != nullptr && v->is_tensor()) {
        ETR_RETURN_IF_ERROR(resize_output(*d, &v->to_tensor(), *g.tensor(g.outputs[i]), i));
      }
      Result<Tensor*> t = arg_tensor(*d, args, g.inputs.size() + i, g.outputs[i], "output", i);
      if (!t.ok()) return t.error();
      outs[i] = *t;
    }
    ETR_RETURN_IF_ERROR(submit_and_wait(d));
    if (d->queries != VK_NULL_HANDLE) collect_profile(d);
    for (size_t i = 0; i < outs.size(); ++i) {
      if (outs[i] == nullptr) continue;
      copy_staging(*outs[i], g.tensor(g.outputs[i])->device, d->out_staging[i].mapped, false);
    }
    return Error::Ok;
  }

  void destroy(DelegateHandle* handle) const override {
    Delegate* d = static_cast<Delegate*>(handle);
    if (d == nullptr) return;
    d->~Delegate();
    platform_deallocate(d);
  }
};

const VulkanBackend kBackend;

}  // namespace

const BackendInterface& vulkan_backend() { return kBackend; }

Error register_vulkan_backend(BackendRegistry* registry) {
  BackendRegistry& r = registry == nullptr ? default_backend_registry() : *registry;
  return r.add(Backend{"VulkanBackend", &kBackend});
}

size_t vulkan_pipeline_creations() { return vulkan::vulkan_pipeline_creations(); }
size_t vulkan_validation_messages() { return vulkan::vulkan_validation_messages(); }
size_t vulkan_fp16_storage_delegates() { return g_fp16_delegates.load(); }

}  // namespace etr

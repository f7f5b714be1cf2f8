// Operator kinds of the Vulkan delegate: each operator name the exporter
// writes ("aten.add.Tensor") has one descriptor that checks the call's
// arguments (kinds, dtypes, shapes) against the graph and turns it into
// steps: shader dispatches with their push constants, or buffer copies.
// Nothing here calls Vulkan; the backend records the steps at init (and
// again when a dynamic program's shapes change: planning is repeatable).
//
// Every tensor lives in a plain storage buffer, contiguous in the
// payload's dims (the payload's texture/packing requests are ignored:
// layout is internal), and every shader computes in fp32 (float16 tensors
// may be stored as float16: Step::fp16; bool tensors are float32 0/1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends/vulkan/vk_device.h"
#include "backends/vulkan/vk_graph.h"
#include "runtime/core/error.h"

namespace etr {
namespace vulkan {

enum class Shader : uint8_t {
  Binary,
  Unary,
  Matmul,
  Softmax,
  CopyStrided,
  Conv2d,
  Pool2d,
  Reduce,
  LayerNorm,
  BatchNorm,
  Upsample,
  Embedding,
  Cast,
  ConvTranspose2d,
  LinearQ4gsw,
  RmsNorm,
  Rope,
  KvUpdate,
  Sdpa,
  Quantize,
  Q8taLinear,
  EmbeddingQ4gsw,
  GroupNorm,
  Conv2dOc4,
  Where,
  LinearQ8taQ8csw,
  Count
};
constexpr size_t kNumShaders = static_cast<size_t>(Shader::Count);
// Pipeline slots: shader s at s, its float16-storage variant at kNumShaders + s.
static_assert(2 * kNumShaders <= kMaxPipelines, "the device keeps one pipeline per variant");

struct ShaderInfo {
  const char* name;
  const uint32_t* code;
  size_t words;
  uint32_t bindings;    // storage buffers: binding 0 is the output
  uint32_t push_bytes;  // <= 128 (the guaranteed push-constant size)
  uint32_t local_size;  // invocations per workgroup along x (1-D shaders)
};
const ShaderInfo& shader_info(Shader s);
// The float16-storage variant of `s` (its float buffers hold float16, see
// shaders/float_storage.glsl), or null when `s` has none.
const ShaderInfo* shader_info_fp16(Shader s);

struct Step {
  // CheckInput records nothing: execute checks, before submitting, that
  // element push[0] of the graph input buffers[0] (an int tensor) lies in
  // [push[1], push[2]] (int32), and fails naming operator op_index otherwise.
  enum class Kind : uint8_t { Dispatch, Copy, CheckInput };
  Kind kind = Kind::Dispatch;
  Shader shader = Shader::Binary;
  uint32_t op_index = 0;
  // Dispatch: value ids bound to bindings 0..n-1 (output first).
  // Copy: buffers[0] is the destination and buffers[1] the source.
  uint32_t buffers[6] = {};
  uint32_t num_buffers = 0;
  uint32_t push[32] = {};
  uint32_t groups[3] = {1, 1, 1};
  uint64_t copy_bytes = 0;
  // Dispatch: the shader's float16-storage variant (set by the backend when
  // the bound float tensors are float16 on the device).
  bool fp16 = false;
};

// Workgroup-count limits of the device (maxComputeWorkGroupCount).
struct DispatchLimits {
  uint32_t max_groups[3];
};

// Checks `op` and appends its steps. An operator that only re-labels a
// constant (et_vk.prepack) appends nothing and sets (*alias)[output] to the
// constant's value id. Unknown names fail with NotSupported naming the
// operator; bad arguments with InvalidProgram naming the operator, argument
// and field; a dispatch over the device limits with NotSupported.
Error plan_operator(const Graph& g, const Operator& op, const DispatchLimits& limits,
                    std::vector<Step>* steps, std::vector<uint32_t>* alias);

// Whether `name` is an operator this delegate runs.
bool is_supported_operator(const char* name);

}  // namespace vulkan
}  // namespace etr

// The Vulkan delegate's operators for quantized models and LLM programs
// (issue 21): the 4-bit quantized linear layers and embedding the partitioner
// writes for torchao's weight-only and 8da4w quantization
// (et_vk.linear_q4gsw, et_vk.linear_dq8ca_q4gsw with its
// torchao.choose_qparams_affine, et_vk.embedding_q4gsw), the static int8 flow
// of the XNNPACK quantizer (quantize_per_tensor, et_vk.q8ta_linear,
// dequantize_per_tensor), int8 activations with a float output
// (et_vk.linear_q8ta_q8csw), and what the official LLM exporter's Vulkan
// programs call (et_vk.rms_norm, et_vk.apply_rotary_emb,
// et_vk.select_as_symint, sdpa_with_kv_cache, aten.index.Tensor).
//
// Same contract as plan_operator (vk_ops.h): check the call's arguments
// against the graph, append steps; refusals name the delegate, the operator
// index and name, and the argument's field.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/vulkan/vk_graph.h"
#include "backends/vulkan/vk_ops.h"
#include "runtime/core/error.h"

namespace etr {
namespace vulkan {

using LlmPlanFn = Error (*)(const Graph& g, const Operator& op, const DispatchLimits& limits,
                            std::vector<Step>* steps);

// Whether value `id` is the SymInt output of an et_vk.select_as_symint call
// before operator `user` (*found); if so, the int32 tensor and the element it
// reads on the device. InvalidProgram (naming `user`) when that call's
// arguments are bad.
Error device_symint(const Graph& g, const Operator& user, uint32_t id, bool* found,
                    uint32_t* tensor, uint32_t* element);

// Gives float32 back to the output of every et_vk.linear_q8ta_q8csw that the
// program types int8. The operator's result is float (int8 activations
// times int8 weights, rescaled); the official exporter (1.5.x) types the
// output of a bias-free one like its int8 input. Runs before planning and
// buffer placement; a repaired graph output is staged as float32 too.
void retype_q8csw_outputs(Graph* g);

// The planner of the LLM operator `name`, or null when it is not one.
LlmPlanFn find_llm_operator(const char* name);

}  // namespace vulkan
}  // namespace etr

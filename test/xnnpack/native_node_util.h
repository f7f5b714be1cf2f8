// What the tests of the delegate's native nodes share: short names for the
// graph's types, a per-tensor quantized value, a node by its inputs and
// output, a transpose node, and memory for prepare_native_node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "backends/xnnpack/node_kinds.h"
#include "backends/xnnpack/xnnpack_graph.h"
#include "runtime/core/memory_allocator.h"

namespace etr {
namespace testing {

using xnnpack::Dtype;
using xnnpack::Node;
using xnnpack::NodeKind;
using xnnpack::QuantKind;
using xnnpack::Value;
using xnnpack::Values;

// Value `id` of type t with `dims`, quantized per tensor (scale, zero point).
inline Value qvalue(uint32_t id, Dtype t, std::vector<size_t> dims, float scale, int32_t zp) {
  Value v;
  v.id = id;
  v.dtype = t;
  v.num_dims = static_cast<uint32_t>(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) v.dims[i] = dims[i];
  v.quant = QuantKind::PerTensor;
  v.scale = scale;
  v.zero_point = zp;
  return v;
}

// Node `index` of `kind` reading the values `inputs` (in order) and writing
// value `output`, without bounds or parameters.
inline Node make_node(NodeKind kind, uint32_t index, std::initializer_list<uint32_t> inputs,
                      uint32_t output) {
  Node n;
  n.kind = kind;
  n.index = index;
  for (uint32_t id : inputs) n.inputs[n.num_inputs++] = id;
  n.outputs[0] = output;
  n.num_outputs = 1;
  return n;
}

// Node `index`, a transpose of value x into value y: output dim i is input
// dim perm[i].
inline Node transpose_node(uint32_t index, uint32_t x, uint32_t y,
                           const std::vector<size_t>& perm) {
  Node n = make_node(NodeKind::StaticTranspose, index, {x}, y);
  xnnpack::TransposeParams& p = n.set_transpose();
  p.rank = static_cast<uint32_t>(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) p.perm[i] = perm[i];
  return n;
}

// Gives node n the parameters of an ungrouped convolution: padding (top,
// right, bottom, left), window kh x kw, strides sh, sw, dilations dh, dw,
// cin input and cout output channels.
inline void set_conv(Node* n, std::vector<uint32_t> pads_trbl, uint32_t kh, uint32_t kw,
                     uint32_t sh, uint32_t sw, uint32_t dh, uint32_t dw, uint32_t cin,
                     uint32_t cout) {
  xnnpack::ConvParams& p = n->set_conv();
  p.padding_top = pads_trbl[0];
  p.padding_right = pads_trbl[1];
  p.padding_bottom = pads_trbl[2];
  p.padding_left = pads_trbl[3];
  p.kernel_height = kh;
  p.kernel_width = kw;
  p.subsampling_height = sh;
  p.subsampling_width = sw;
  p.dilation_height = dh;
  p.dilation_width = dw;
  p.group_input_channels = cin;
  p.group_output_channels = cout;
  p.groups = 1;
}

// Memory for what prepare_native_node keeps (the delegate's method
// allocator in a real init); lives as long as the states prepared from it.
struct Arena {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(size_t{4} << 20);
  MemoryAllocator alloc{bytes.data(), bytes.size()};
};

}  // namespace testing
}  // namespace etr

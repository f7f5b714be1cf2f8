// The XNNPACK delegate payload, parsed and checked once at init: the
// container (XH00 header or a bare legacy flatbuffer), the XNNGraph values
// with their constant data resolved, and the nodes with every id checked.
// Nothing here calls XNNPACK; xnnpack_backend.cpp builds runtimes from it.
//
// Every refusal logs "XnnpackBackend: delegate <d>: <where>: <what>" (node
// index and kind, value id, field) and returns an Error; a hostile payload
// never makes the parser read outside the payload or the named data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/named_data_map.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace etr {
namespace xnnpack {

constexpr uint32_t kInvalidId = 0xFFFFFFFFu;
constexpr size_t kMaxDims = 6;  // XNNPACK's rank limit
constexpr uint32_t kFlagExternalInput = 1u;
constexpr uint32_t kFlagExternalOutput = 2u;

// Element types the payload names (XNNDatatype codes).
enum class Dtype : int16_t {
  Invalid = 0,
  Fp32 = 1,
  Fp16 = 2,
  QInt8 = 3,
  QUInt8 = 4,
  QInt32 = 5,
  QCInt8 = 6,
  QCInt32 = 7,
  QCInt4 = 8,
  QDInt8 = 9,
  QBInt4 = 10,
  QPInt8 = 11,
  Int32 = 12,
  PFp32 = 13,
  BF16 = 14,
};
const char* to_string(Dtype d);
// Bytes per element; 0 for sub-byte and unknown types.
size_t element_size(Dtype d);

enum class QuantKind : uint8_t { None, PerTensor, PerChannel, PerToken, PerChannelGroup };

struct Value {
  uint32_t id = kInvalidId;  // the payload's id_out (== index in xvalues)
  Dtype dtype = Dtype::Invalid;
  uint32_t num_dims = 0;
  size_t dims[kMaxDims] = {};
  uint32_t flags = 0;
  uint32_t external_id = kInvalidId;  // index into the DelegateCall's args when external
  // Constant data (null when the value is not constant), nbytes() long.
  // After init the delegate may release the named-data buffer of a constant
  // that only native nodes read and that they copied or packed (see
  // NativeState): `data` then dangles and nothing reads it.
  const uint8_t* data = nullptr;
  int32_t named_buffer = -1;  // index in Graph::named_buffers, or -1
  // Quantization.
  QuantKind quant = QuantKind::None;
  float scale = 0.0f;
  int32_t zero_point = 0;
  const float* channel_scales = nullptr;  // num_channel_scales entries, 4-byte aligned copy
  size_t num_channel_scales = 0;
  uint32_t channel_dim = 0;
  int32_t num_nonbatch_dims = 0;  // PerToken: trailing dims quantized together
  // PerChannelGroup (qbint4 [outputs, inputs]): inputs per block and the
  // bf16 block scales as floats ([outputs, inputs / group_size]).
  size_t group_size = 0;
  const float* block_scales = nullptr;
  size_t num_block_scales = 0;

  bool is_external_input() const { return (flags & kFlagExternalInput) != 0; }
  bool is_external_output() const { return (flags & kFlagExternalOutput) != 0; }
  size_t numel() const;
  size_t nbytes() const { return numel() * element_size(dtype); }
};

// Node kinds: the XNodeUnion type codes.
enum class NodeKind : uint8_t {
  Add = 1,
  FullyConnected = 2,
  Softmax = 3,
  Sigmoid = 4,
  StaticTranspose = 5,
  Clamp = 6,
  Conv2d = 7,
  Div = 8,
  StaticResizeBilinear2D = 9,
  StaticConstantPad = 10,
  AvgPooling2d = 11,
  Minimum = 12,
  DepthwiseConv2d = 13,
  MaxPooling2d = 14,
  Multiply = 15,
  Subtract = 16,
  Floor = 17,
  Convert = 18,
  GlobalAvgPooling2d = 19,
  StaticReshape = 20,
  ArgMaxPooling2d = 21,
  SquareRoot = 22,
  Ceiling = 23,
  Hardswish = 24,
  LeakyReLU = 25,
  Maximum = 26,
  Negate = 27,
  Square = 28,
  ELU = 29,
  Abs = 30,
  PReLU = 31,
  Concatenate2 = 32,
  Concatenate3 = 33,
  Concatenate4 = 34,
  StaticSlice = 35,
  ScaledDotProductAttention = 36,
  BatchMatrixMultiply = 37,
  Concatenate5 = 38,
  ConvTranspose2d = 39,
  ReciprocalSquareRoot = 40,
  Log = 41,
  Gelu = 42,
  Tanh = 43,
  Exp = 44,
  Sin = 45,
  Copy = 46,
  Cos = 47,
};
const char* to_string(NodeKind k);

// One node with its parameters flattened: which fields are used depends on
// the kind (see xnnpack_graph.cpp, parse_node).
struct Node {
  NodeKind kind;
  uint32_t index;  // position in xnodes, for messages
  // Value ids read (kInvalidId for an absent optional one, e.g. bias).
  uint32_t inputs[5] = {kInvalidId, kInvalidId, kInvalidId, kInvalidId, kInvalidId};
  uint32_t num_inputs = 0;
  uint32_t outputs[2] = {kInvalidId, kInvalidId};
  uint32_t num_outputs = 0;
  uint32_t flags = 0;
  float output_min = -__builtin_inff();
  float output_max = __builtin_inff();
  // Convolution / pooling / pad / resize / transpose / reshape / slice / cat parameters.
  uint32_t params[20] = {};
  size_t list_a[kMaxDims] = {};  // perm, new_shape, offsets, pre_paddings
  size_t list_b[kMaxDims] = {};  // slice sizes, post_paddings
  uint32_t list_len = 0;
  float alpha = 0.0f;  // leaky_relu slope, elu alpha, pad value
};

// The parsed payload. Constant data points into the payload (kept alive by
// `payload`) or into named-data buffers (kept alive by `named_buffers`).
struct Graph {
  std::vector<Value> values;
  std::vector<Node> nodes;
  uint32_t num_externs = 0;
  std::vector<FreeableBuffer> named_buffers;
  std::vector<std::vector<float>> scale_copies;  // aligned copies of per-channel scales
};

// Parses and checks `payload` (the delegate's processed bytes). Constants
// named by key are fetched from `named_data` (may be null when none exist).
[[nodiscard]] Error parse_graph(const void* payload, size_t size, const NamedDataMap* named_data,
                                size_t delegate_index, Graph* out);

}  // namespace xnnpack
}  // namespace etr

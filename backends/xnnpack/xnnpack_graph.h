// The XNNPACK delegate payload, parsed and checked once at init: the
// container (XH00 header or a bare legacy flatbuffer), the XNNGraph values
// with their constant data resolved, and the nodes with every id checked.
// Nothing here calls XNNPACK; xnnpack_backend.cpp builds runtimes from it.
//
// Every refusal logs "XnnpackBackend: delegate <d>: <where>: <what>" (node
// index and kind, value id, field) and returns an Error; a hostile payload
// never makes the parser read outside the payload or the named data.
#pragma once

#include <cassert>
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

// The 16-bit float formats the delegate holds as fp32 (narrow_float.h).
enum class NarrowFloat : uint8_t { None, BF16, Fp16 };

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
  // The named-data key the constant came from (into the payload, which the
  // delegate keeps), or null: one key always gives the same bytes, so the
  // delegates of a method can share what they pack from it (SharedPacks).
  const char* named_key = nullptr;
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
  // The payload named this value bf16 or fp16; the delegate holds it as
  // fp32 (dtype Fp32, narrow_float.h). Its tensor argument, when external,
  // has the payload's dtype.
  NarrowFloat narrowed = NarrowFloat::None;
  int32_t widened_index = -1;  // a constant's index in Graph::widened, or -1

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

// Typed node parameters, parsed once from the node's flatbuffer table
// (node_kinds.cpp says which kind carries which).

// Conv2d, DepthwiseConv2d, ConvTranspose2d (_XNNNodeConv).
struct ConvParams {
  uint32_t padding_top = 0, padding_right = 0, padding_bottom = 0, padding_left = 0;
  uint32_t kernel_height = 0, kernel_width = 0;
  uint32_t subsampling_height = 0, subsampling_width = 0;
  uint32_t dilation_height = 0, dilation_width = 0;
  uint32_t group_input_channels = 0, group_output_channels = 0, groups = 0;
  uint32_t adjustment_height = 0, adjustment_width = 0;  // ConvTranspose2d only
};

// AvgPooling2d, MaxPooling2d (_XNNPooling2D) and ArgMaxPooling2d (whose
// stride is its window and whose dilation is 1).
struct PoolParams {
  uint32_t padding_top = 0, padding_right = 0, padding_bottom = 0, padding_left = 0;
  uint32_t pooling_height = 0, pooling_width = 0;
  uint32_t stride_height = 0, stride_width = 0;
  uint32_t dilation_height = 1, dilation_width = 1;
};

// StaticTranspose: output dim i is input dim perm[i].
struct TransposeParams {
  size_t perm[kMaxDims] = {};
  uint32_t rank = 0;
};

// StaticReshape: the new dims, at most one 0 (inferred).
struct ReshapeParams {
  size_t new_shape[kMaxDims] = {};
  uint32_t rank = 0;
};

// StaticSlice: a size of 0 runs to the end of the input's dim.
struct SliceParams {
  size_t offsets[kMaxDims] = {};
  size_t sizes[kMaxDims] = {};
  uint32_t rank = 0;
};

// StaticConstantPad.
struct PadParams {
  size_t pre[kMaxDims] = {};
  size_t post[kMaxDims] = {};
  uint32_t rank = 0;
  float value = 0.0f;
};

// Concatenate2..5.
struct ConcatParams {
  uint32_t axis = 0;
};

// StaticResizeBilinear2D.
struct ResizeParams {
  uint32_t new_height = 0, new_width = 0;
};

// LeakyReLU.
struct SlopeParams {
  float negative_slope = 0.0f;
};

// ELU.
struct EluParams {
  float alpha = 0.0f;
};

// Which member of Node's parameter union is live.
enum class ParamsKind : uint8_t {
  None,
  Conv,
  Pool,
  Transpose,
  Reshape,
  Slice,
  Pad,
  Concat,
  Resize,
  Slope,
  Elu
};

// One node: its value ids and its kind's typed parameters (a tagged union;
// read them through the accessor of the kind, e.g. n.conv().kernel_height,
// which asserts the tag in debug builds; set them with set_conv(...) etc.).
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

  ParamsKind params_kind() const { return tag_; }
#define ETR_XNN_PARAMS_ACCESSORS(Type, name, Tag)      \
  const Type& name() const {                           \
    assert(tag_ == ParamsKind::Tag && "wrong params"); \
    return u_.name;                                    \
  }                                                    \
  Type& set_##name(const Type& p = Type()) {           \
    tag_ = ParamsKind::Tag;                            \
    u_.name = p;                                       \
    return u_.name;                                    \
  }
  ETR_XNN_PARAMS_ACCESSORS(ConvParams, conv, Conv)
  ETR_XNN_PARAMS_ACCESSORS(PoolParams, pool, Pool)
  ETR_XNN_PARAMS_ACCESSORS(TransposeParams, transpose, Transpose)
  ETR_XNN_PARAMS_ACCESSORS(ReshapeParams, reshape, Reshape)
  ETR_XNN_PARAMS_ACCESSORS(SliceParams, slice, Slice)
  ETR_XNN_PARAMS_ACCESSORS(PadParams, pad, Pad)
  ETR_XNN_PARAMS_ACCESSORS(ConcatParams, concat, Concat)
  ETR_XNN_PARAMS_ACCESSORS(ResizeParams, resize, Resize)
  ETR_XNN_PARAMS_ACCESSORS(SlopeParams, slope, Slope)
  ETR_XNN_PARAMS_ACCESSORS(EluParams, elu, Elu)
#undef ETR_XNN_PARAMS_ACCESSORS

 private:
  union Params {
    Params() : conv() {}
    ConvParams conv;
    PoolParams pool;
    TransposeParams transpose;
    ReshapeParams reshape;
    SliceParams slice;
    PadParams pad;
    ConcatParams concat;
    ResizeParams resize;
    SlopeParams slope;
    EluParams elu;
  };
  ParamsKind tag_ = ParamsKind::None;
  Params u_;
};

// The parsed payload. Constant data points into the payload (kept alive by
// `payload`) or into named-data buffers (kept alive by `named_buffers`).
struct Graph {
  std::vector<Value> values;
  std::vector<Node> nodes;
  uint32_t num_externs = 0;
  std::vector<FreeableBuffer> named_buffers;
  std::vector<std::vector<float>> scale_copies;  // aligned copies of per-channel scales
  // bf16 and fp16 constants widened to fp32 (narrow_float.h); one released after init
  // (emptied) when only native nodes read it and they packed a copy.
  std::vector<std::vector<float>> widened;
};

// Parses and checks `payload` (the delegate's processed bytes). Constants
// named by key are fetched from `named_data` (may be null when none exist).
[[nodiscard]] Error parse_graph(const void* payload, size_t size, const NamedDataMap* named_data,
                                size_t delegate_index, Graph* out);

}  // namespace xnnpack
}  // namespace etr

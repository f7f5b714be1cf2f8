// The Vulkan delegate payload, parsed and checked once at init: the VH00
// header, the VK00 VkGraph flatbuffer (verified with the flatbuffers
// verifier, then every id, dim, offset and constant range checked), and the
// constants resolved to bytes in the payload or in named data. Nothing here
// calls Vulkan; vulkan_backend.cpp builds the device objects from it.
//
// Every refusal logs "VulkanBackend: delegate <d>: <where>: <what>" (operator
// index and name, value id, field) and returns an Error; a hostile payload
// never makes the parser read outside the payload or the named data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/named_data_map.h"

namespace etr {
namespace vulkan {

constexpr size_t kMaxDims = 8;
constexpr uint32_t kNoId = 0xFFFFFFFFu;
// The largest tensor the delegate accepts (elements); keeps every byte count
// well inside 32-bit shader indexing.
constexpr uint64_t kMaxNumel = uint64_t{1} << 30;

// VkDataType codes.
enum class Dtype : int8_t {
  Bool = 0,
  UInt8 = 1,
  Int8 = 2,
  Int32 = 3,
  Float16 = 4,
  Float32 = 5,
  Float64 = 6,
  Int64 = 7,
  Unset = 127,
};
const char* to_string(Dtype d);
// Float32 or Float16.
inline bool is_float(Dtype d) { return d == Dtype::Float32 || d == Dtype::Float16; }
// Bytes per element; 0 for Unset or an unknown code.
size_t element_size(Dtype d);

// The GraphTypes union members, in wire order (0 is "none").
enum class Kind : uint8_t {
  None = 0,
  Null,
  Int,
  Double,
  Bool,
  Tensor,
  IntList,
  DoubleList,
  BoolList,
  ValueList,
  String,
  SymInt,
};
const char* to_string(Kind k);

struct TensorInfo {
  Dtype dtype = Dtype::Unset;
  Dtype staging = Dtype::Unset;  // host-side dtype of an input/output
  // Element type of the tensor's buffer on the device: the dtype, except
  // that float16 tensors (force_fp16 programs) are kept in float32 (their
  // constants widened at upload) unless the backend chooses float16
  // storage for the delegate (vulkan_backend.cpp; computed in float32);
  // bool tensors are float32 0.0 or 1.0 (widened at upload and staging).
  Dtype device = Dtype::Unset;
  uint32_t ndim = 0;
  uint32_t dims[kMaxDims] = {};
  int32_t constant_id = -1;  // index in Graph::constants, or -1
  int32_t mem_obj_id = -1;   // shared memory object, or -1 (own memory)
  uint8_t storage = 255;     // VkStorageType as written (we use buffers throughout)
  uint8_t layout = 255;      // VkMemoryLayout as written
  uint64_t numel = 1;
  // The dims as serialized: the upper bounds of a dynamic shape (the device
  // buffers are sized for them at init); dims/numel are the current shape.
  uint32_t max_dims[kMaxDims] = {};
  uint64_t max_numel = 1;
  uint64_t nbytes() const { return numel * element_size(dtype); }  // as serialized
  uint64_t device_nbytes() const { return numel * element_size(device); }
  uint64_t max_device_nbytes() const { return max_numel * element_size(device); }
};

struct Value {
  Kind kind = Kind::None;
  int64_t int_value = 0;
  double double_value = 0.0;
  bool bool_value = false;
  TensorInfo tensor;
  std::vector<int64_t> ints;     // IntList
  std::vector<double> doubles;   // DoubleList
  std::vector<uint8_t> bools;    // BoolList
  std::vector<uint32_t> values;  // ValueList (ids, each checked)
  std::string string;            // String
};

struct Operator {
  uint32_t index = 0;
  std::string name;            // "aten.add.Tensor"
  std::vector<uint32_t> args;  // value ids, outputs last; each checked
};

// Bytes of one constant: in the payload (kept while the delegate lives) or
// in a named-data buffer held by Graph::named_buffers.
struct Constant {
  const uint8_t* data = nullptr;
  uint64_t size = 0;
};

struct Graph {
  size_t delegate_index = 0;
  std::vector<Value> values;
  std::vector<Operator> ops;
  std::vector<uint32_t> inputs;   // tensor value ids
  std::vector<uint32_t> outputs;  // tensor value ids
  std::vector<Constant> constants;
  std::vector<FreeableBuffer> named_buffers;
  // Whether the program has SymInt values (sizes computed at run time,
  // propagated at init too). Every program's tensors can take any shape
  // within their max_dims when its inputs change shape.
  bool dynamic = false;

  const TensorInfo* tensor(uint32_t id) const {
    return id < values.size() && values[id].kind == Kind::Tensor ? &values[id].tensor : nullptr;
  }
};

// Header fields (VulkanDelegateHeader): little-endian at fixed offsets.
struct Header {
  uint32_t flatbuffer_offset = 0;
  uint32_t flatbuffer_size = 0;
  uint32_t bytes_offset = 0;
  uint64_t bytes_size = 0;
};
constexpr size_t kHeaderSize = 30;

// Reads and range-checks the VH00 header of `data`; InvalidProgram (naming
// the field) when absent or out of the payload's bounds.
Error parse_header(const uint8_t* data, size_t size, size_t delegate_index, Header* out);

// Parses and checks the whole payload into `out`. Constants in named data
// are fetched from `named` (may be null when the payload has none).
Error parse_graph(const uint8_t* data, size_t size, const NamedDataMap* named,
                  size_t delegate_index, Graph* out);

}  // namespace vulkan
}  // namespace etr

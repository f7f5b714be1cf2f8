// extension/runner_util (prepare_input_tensors) and extension/evalue_util
// (printing EValues) of the official API, over the official faces.
#include <executorch/extension/evalue_util/print_evalue.h>
#include <executorch/extension/runner_util/inputs.h>
#include <executorch/runtime/platform/log.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <limits>
#include <new>
#include <sstream>
#include <string>

#include "runtime/core/checked_math.h"
#include "runtime/core/half.h"
#include "runtime/core/tensor.h"

namespace executorch {
namespace extension {

using runtime::Error;
using runtime::EValue;
using runtime::Result;
using runtime::Tag;

namespace {

// Writes the value one in `dtype` to `count` elements at `data`. False for
// a dtype without a "one" (quantized, bits, complex).
bool fill_ones(void* data, size_t count, executorch::aten::ScalarType dtype) {
  using ST = executorch::aten::ScalarType;
  auto fill = [&](auto one) {
    auto* p = static_cast<decltype(one)*>(data);
    for (size_t i = 0; i < count; ++i) p[i] = one;
  };
  switch (dtype) {
    case ST::Byte: fill(uint8_t{1}); return true;
    case ST::Char: fill(int8_t{1}); return true;
    case ST::Short: fill(int16_t{1}); return true;
    case ST::Int: fill(int32_t{1}); return true;
    case ST::Long: fill(int64_t{1}); return true;
    case ST::UInt16: fill(uint16_t{1}); return true;
    case ST::UInt32: fill(uint32_t{1}); return true;
    case ST::UInt64: fill(uint64_t{1}); return true;
    case ST::Float: fill(1.0f); return true;
    case ST::Double: fill(1.0); return true;
    case ST::Half: fill(::etr::Half(1.0f)); return true;
    case ST::BFloat16: fill(::etr::BFloat16(1.0f)); return true;
    case ST::Bool: fill(true); return true;
    default: return false;
  }
}

// One heap block per input: the data first (aligned for any dtype), then
// the etr tensor and its sizes, dim order and strides.
struct InputBlock {
  static constexpr size_t kDataAlignment = 64;
  size_t data_bytes = 0;
  size_t tensor_offset = 0;
  size_t sizes_offset = 0;
  size_t dim_order_offset = 0;
  size_t strides_offset = 0;
  size_t total = 0;

  // False on overflow.
  bool plan(size_t nbytes, size_t dim) {
    data_bytes = nbytes;
    size_t at = 0;
    if (!::etr::align_up(nbytes, alignof(::etr::Tensor), &at)) return false;
    tensor_offset = at;
    at += sizeof(::etr::Tensor);
    strides_offset = at;  // Tensor alignment covers int64_t
    at += dim * sizeof(int64_t);
    sizes_offset = at;
    at += dim * sizeof(int32_t);
    dim_order_offset = at;
    at += dim;
    return ::etr::align_up(at == 0 ? 1 : at, kDataAlignment, &total);
  }
};

}  // namespace

namespace internal {

Error fill_and_set_input(Method& method, TensorInfo& tensor_meta, size_t input_index,
                         void* data_ptr, bool fill_tensor) {
  // data_ptr is a block laid out by InputBlock for this input (see
  // prepare_input_tensors), or caller memory of nbytes() bytes: in the
  // latter case the tensor's metadata lives on this stack frame, which is
  // enough because set_input copies or binds the data, not the metadata.
  const auto sizes = tensor_meta.sizes();
  const auto dim_order = tensor_meta.dim_order();
  ET_CHECK_OR_RETURN_ERROR(sizes.size() <= ::etr::kTensorMaxDim, InvalidArgument,
                           "input %zu: rank %zu above %zu", input_index, sizes.size(),
                           ::etr::kTensorMaxDim);
  int32_t sizes_copy[::etr::kTensorMaxDim];
  uint8_t dim_order_copy[::etr::kTensorMaxDim];
  int64_t strides[::etr::kTensorMaxDim];
  for (size_t d = 0; d < sizes.size(); ++d) {
    sizes_copy[d] = sizes[d];
    dim_order_copy[d] = dim_order.size() == sizes.size() ? dim_order[d] : static_cast<uint8_t>(d);
  }
  ::etr::Tensor tensor(tensor_meta.scalar_type(), sizes.size(), sizes_copy, dim_order_copy, strides,
                       data_ptr);
  if (fill_tensor) {
    ET_CHECK_OR_RETURN_ERROR(
        fill_ones(data_ptr, static_cast<size_t>(tensor.numel()), tensor_meta.scalar_type()),
        NotSupported, "input %zu: cannot fill a %s tensor with ones", input_index,
        ::etr::to_string(tensor_meta.scalar_type()));
  }
  return method.set_input(EValue(executorch::aten::Tensor(&tensor)), input_index);
}

}  // namespace internal

Result<BufferCleanup> prepare_input_tensors(
    Method& method, PrepareInputTensorsOptions options,
    const std::vector<std::pair<char*, size_t>>& input_buffers) {
  const runtime::MethodMeta meta = method.method_meta();
  const size_t num_inputs = meta.num_inputs();
  ET_CHECK_OR_RETURN_ERROR(num_inputs <= options.max_inputs, InvalidArgument,
                           "Too many inputs: %zu > %zu", num_inputs, options.max_inputs);
  ET_CHECK_OR_RETURN_ERROR(input_buffers.empty() || input_buffers.size() == num_inputs,
                           InvalidArgument, "Expected %zu input buffers, got %zu", num_inputs,
                           input_buffers.size());
  void** blocks = static_cast<void**>(std::calloc(num_inputs == 0 ? 1 : num_inputs, sizeof(void*)));
  ET_CHECK_OR_RETURN_ERROR(blocks != nullptr, MemoryAllocationFailed,
                           "Failed to allocate the input list");
  size_t num_allocated = 0;
  size_t total_bytes = 0;
  for (size_t i = 0; i < num_inputs; ++i) {
    Result<Tag> tag = meta.input_tag(i);
    if (!tag.ok()) {
      BufferCleanup cleanup({blocks, num_allocated});
      return tag.error();
    }
    if (*tag != Tag::Tensor) {
      ET_LOG(Debug, "Skipping non-tensor input %zu", i);
      continue;
    }
    Result<TensorInfo> info = meta.input_tensor_meta(i);
    if (!info.ok()) {
      BufferCleanup cleanup({blocks, num_allocated});
      return info.error();
    }
    const size_t nbytes = info->nbytes();
    if (!::etr::checked_add(total_bytes, nbytes, &total_bytes) ||
        total_bytes > options.max_total_allocation_size) {
      ET_LOG(Error, "Input %zu: total input size exceeds max_total_allocation_size %zu", i,
             options.max_total_allocation_size);
      BufferCleanup cleanup({blocks, num_allocated});
      return Error::InvalidArgument;
    }
    InputBlock layout;
    if (!layout.plan(nbytes, info->sizes().size())) {
      BufferCleanup cleanup({blocks, num_allocated});
      return Error::InvalidArgument;
    }
    void* block = std::aligned_alloc(InputBlock::kDataAlignment, layout.total);
    if (block == nullptr) {
      ET_LOG(Error, "Input %zu: cannot allocate %zu bytes", i, layout.total);
      BufferCleanup cleanup({blocks, num_allocated});
      return Error::MemoryAllocationFailed;
    }
    blocks[num_allocated++] = block;
    bool fill = true;
    if (!input_buffers.empty()) {
      const auto& given = input_buffers[i];
      if (given.second < nbytes) {
        ET_LOG(Error, "Input %zu: the buffer holds %zu bytes, the tensor needs %zu", i,
               given.second, nbytes);
        BufferCleanup cleanup({blocks, num_allocated});
        return Error::InvalidArgument;
      }
      if (nbytes != 0) std::memcpy(block, given.first, nbytes);
      fill = false;
    }
    // The tensor's metadata sits in the block after the data, so the tensor
    // stays valid as long as the BufferCleanup does.
    uint8_t* base = static_cast<uint8_t*>(block);
    const auto sizes = info->sizes();
    const auto dim_order = info->dim_order();
    auto* sizes_copy = reinterpret_cast<int32_t*>(base + layout.sizes_offset);
    auto* dim_order_copy = base + layout.dim_order_offset;
    auto* strides = reinterpret_cast<int64_t*>(base + layout.strides_offset);
    for (size_t d = 0; d < sizes.size(); ++d) {
      sizes_copy[d] = sizes[d];
      dim_order_copy[d] = dim_order.size() == sizes.size() ? dim_order[d] : static_cast<uint8_t>(d);
    }
    auto* tensor = new (base + layout.tensor_offset)::etr::Tensor(
        info->scalar_type(), sizes.size(), sizes_copy, dim_order_copy, strides, block);
    if (fill && !fill_ones(block, static_cast<size_t>(tensor->numel()), info->scalar_type())) {
      ET_LOG(Error, "Input %zu: cannot fill a %s tensor with ones", i,
             ::etr::to_string(info->scalar_type()));
      BufferCleanup cleanup({blocks, num_allocated});
      return Error::NotSupported;
    }
    const Error err = method.set_input(EValue(executorch::aten::Tensor(tensor)), i);
    if (err != Error::Ok) {
      ET_LOG(Error, "Failed to prepare input %zu: 0x%" PRIx32, i, static_cast<uint32_t>(err));
      BufferCleanup cleanup({blocks, num_allocated});
      return err;
    }
  }
  return BufferCleanup({blocks, num_allocated});
}

// ---- Printing --------------------------------------------------------------

namespace {

constexpr size_t kItemsPerLine = 10;
constexpr size_t kDefaultEdgeItems = 3;

size_t edge_items_of(std::ostream& os) {
  const long n = os.iword(internal::evalue_edge_items_xalloc());
  return n <= 0 ? kDefaultEdgeItems : static_cast<size_t>(n);
}

// A double as PyTorch prints it: integral finite values get a trailing dot.
void print_double(std::ostream& os, double value) {
  if (!std::isfinite(value)) {
    os << value;
    return;
  }
  std::ostringstream as_double;
  as_double << value;
  bool integral = value == 0.0;  // covers -0.0
  if (!integral && std::fabs(value) < 9.2e18) {
    std::ostringstream as_int;
    as_int << static_cast<int64_t>(value);
    integral = as_double.str() == as_int.str();
  }
  os << as_double.str() << (integral ? "." : "");
}

// Prints `count` items with `item(i)`: "[a, b, c]", eliding the middle of a
// long list ("..., ") and wrapping at kItemsPerLine items per line.
template <typename PrintItem>
void print_list(std::ostream& os, size_t count, bool print_length, bool elide, PrintItem&& item) {
  const size_t edge = elide ? edge_items_of(os) : std::numeric_limits<size_t>::max() / 4;
  if (print_length) os << "(len=" << count << ")";
  const size_t shown = elide ? std::min(count, edge * 2) : count;
  const bool wrapping = shown > kItemsPerLine;
  os << "[";
  size_t on_line = 0;
  for (size_t i = 0; i < count; ++i) {
    if (wrapping && on_line % kItemsPerLine == 0) os << "\n  ";
    item(i);
    if (wrapping || i + 1 < count) os << ", ";
    ++on_line;
    if (i + 1 == edge && i + edge + 1 < count) {
      if (wrapping) {
        os << "\n  ...,";
        on_line = kItemsPerLine - edge % kItemsPerLine;
        if (on_line % kItemsPerLine != 0) os << "\n  ";
      } else {
        os << "..., ";
      }
      i = count - edge - 1;
    }
  }
  if (wrapping) os << "\n";
  os << "]";
}

template <typename T>
void print_numbers(std::ostream& os, const T* data, size_t count, bool print_length) {
  print_list(os, count, print_length, true, [&](size_t i) {
    if constexpr (std::is_same<T, bool>::value) {
      os << (data[i] ? "True" : "False");
    } else if constexpr (std::is_floating_point<T>::value) {
      print_double(os, static_cast<double>(data[i]));
    } else if constexpr (std::is_same<T, ::etr::Half>::value ||
                         std::is_same<T, ::etr::BFloat16>::value) {
      print_double(os, static_cast<double>(static_cast<float>(data[i])));
    } else {
      os << static_cast<int64_t>(data[i]);
    }
  });
}

void print_tensor(std::ostream& os, const executorch::aten::Tensor& t) {
  using ST = executorch::aten::ScalarType;
  os << "tensor(sizes=";
  const auto sizes = t.sizes();
  print_list(os, sizes.size(), false, false, [&](size_t i) { os << sizes[i]; });
  os << ", ";
  const size_t n = static_cast<size_t>(t.numel());
  const void* data = t.const_data_ptr();
  switch (t.scalar_type()) {
    case ST::Byte: print_numbers(os, static_cast<const uint8_t*>(data), n, false); break;
    case ST::Char: print_numbers(os, static_cast<const int8_t*>(data), n, false); break;
    case ST::Short: print_numbers(os, static_cast<const int16_t*>(data), n, false); break;
    case ST::Int: print_numbers(os, static_cast<const int32_t*>(data), n, false); break;
    case ST::Long: print_numbers(os, static_cast<const int64_t*>(data), n, false); break;
    case ST::Float: print_numbers(os, static_cast<const float*>(data), n, false); break;
    case ST::Double: print_numbers(os, static_cast<const double*>(data), n, false); break;
    case ST::Half: print_numbers(os, static_cast<const ::etr::Half*>(data), n, false); break;
    case ST::BFloat16:
      print_numbers(os, static_cast<const ::etr::BFloat16*>(data), n, false);
      break;
    case ST::Bool: print_numbers(os, static_cast<const bool*>(data), n, false); break;
    default: os << "[<unhandled scalar type " << static_cast<int>(t.scalar_type()) << ">]";
  }
  os << ")";
}

// "(len=N)[...]" with each item on its own "[i]: " line when there are several.
template <typename PrintItem>
void print_tensor_list(std::ostream& os, size_t count, PrintItem&& item) {
  os << "(len=" << count << ")[";
  for (size_t i = 0; i < count; ++i) {
    if (count > 1) os << "\n  [" << i << "]: ";
    item(i);
    if (count > 1) os << ",";
  }
  if (count > 1) os << "\n";
  os << "]";
}

}  // namespace

}  // namespace extension

namespace runtime {

std::ostream& operator<<(std::ostream& os, const EValue& value) {
  switch (value.tag) {
    case Tag::None: os << "None"; break;
    case Tag::Bool: os << (value.toBool() ? "True" : "False"); break;
    case Tag::Int: os << value.toInt(); break;
    case Tag::Double: extension::print_double(os, value.toDouble()); break;
    case Tag::String: {
      const std::string_view s = value.toString();
      os << std::quoted(std::string(s.data(), s.size()));
      break;
    }
    case Tag::Tensor: extension::print_tensor(os, value.toTensor()); break;
    case Tag::ListInt: {
      const auto list = value.toIntList();
      extension::print_numbers(os, list.data(), list.size(), true);
      break;
    }
    case Tag::ListDouble: {
      const auto list = value.toDoubleList();
      extension::print_numbers(os, list.data(), list.size(), true);
      break;
    }
    case Tag::ListBool: {
      const auto list = value.toBoolList();
      extension::print_numbers(os, list.data(), list.size(), true);
      break;
    }
    case Tag::ListTensor: {
      const auto list = value.toTensorList();
      extension::print_tensor_list(os, list.size(),
                                   [&](size_t i) { extension::print_tensor(os, list[i]); });
      break;
    }
    case Tag::ListOptionalTensor: {
      const auto list = value.toListOptionalTensor();
      extension::print_tensor_list(os, list.size(), [&](size_t i) {
        if (list[i].has_value()) {
          extension::print_tensor(os, *list[i]);
        } else {
          os << "None";
        }
      });
      break;
    }
    default: os << "<Unknown EValue tag " << static_cast<int>(value.tag) << ">"; break;
  }
  return os;
}

}  // namespace runtime
}  // namespace executorch

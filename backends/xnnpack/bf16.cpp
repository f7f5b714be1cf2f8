#include "backends/xnnpack/bf16.h"

#include <cstring>

#include "runtime/core/half.h"
#include "runtime/platform/log.h"

namespace etr {
namespace xnnpack {

void bf16_to_fp32(const uint16_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = internal::bfloat16_bits_to_float(src[i]);
}

void fp32_to_bf16(const float* src, uint16_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = internal::float_to_bfloat16_bits(src[i]);
}

void round_to_bf16(float* data, size_t n) {
  for (size_t i = 0; i < n; ++i)
    data[i] = internal::bfloat16_bits_to_float(internal::float_to_bfloat16_bits(data[i]));
}

Error widen_bf16_values(Graph* g, size_t delegate) {
  size_t count = 0, values = 0, bytes = 0;
  for (Value& v : g->values) {
    if (v.dtype != Dtype::BF16) continue;
    if (v.quant != QuantKind::None) {
      ETR_FAIL(Error::NotSupported,
               "XnnpackBackend: delegate %zu: value %u: a quantized bf16 value is not supported",
               delegate, v.id);
    }
    v.dtype = Dtype::Fp32;
    v.widened_bf16 = true;
    ++values;
    if (v.data == nullptr) continue;
    // The constant's bytes were checked against its bf16 size when parsed.
    const size_t n = v.numel();
    g->widened.emplace_back();
    std::vector<float>& w = g->widened.back();
    w.resize(n);
    std::vector<uint16_t> bits(n);  // the constant may sit unaligned in the payload
    if (n != 0) std::memcpy(bits.data(), v.data, n * sizeof(uint16_t));
    bf16_to_fp32(bits.data(), w.data(), n);
    v.data = reinterpret_cast<const uint8_t*>(w.data());
    v.widened_index = static_cast<int32_t>(g->widened.size() - 1);
    v.named_buffer = -1;  // the widened copy replaces the named data
    ++count;
    bytes += n * sizeof(float);
  }
  if (values == 0) return Error::Ok;
  // Named-data buffers no value reads any more (every constant in them was
  // widened) are released.
  std::vector<bool> read(g->named_buffers.size(), false);
  for (const Value& v : g->values) {
    if (v.named_buffer >= 0 && static_cast<size_t>(v.named_buffer) < read.size())
      read[static_cast<size_t>(v.named_buffer)] = true;
  }
  size_t released = 0;
  for (size_t b = 0; b < g->named_buffers.size(); ++b) {
    if (read[b] || g->named_buffers[b].data() == nullptr) continue;
    released += g->named_buffers[b].size();
    g->named_buffers[b].release();
  }
  ETR_LOG(Info,
          "XnnpackBackend: delegate %zu: %zu bf16 values held as fp32; %zu bf16 constants widened "
          "to %zu bytes of fp32 (%zu bytes of bf16 named data released)",
          delegate, values, count, bytes, released);
  return Error::Ok;
}

}  // namespace xnnpack
}  // namespace etr

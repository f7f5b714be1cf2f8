#include "backends/xnnpack/xnnpack_graph.h"

#include <cstring>

#include "backends/xnnpack/dq_linear.h"
#include "backends/xnnpack/node_kinds.h"
#include "runtime/core/byte_order.h"
#include "runtime/core/error.h"
#include "runtime/platform/log.h"
#include "schema/xnnpack_graph_generated.h"

namespace etr {
namespace xnnpack {
namespace {

namespace fb = etr_xnn;

constexpr uint32_t kMaxExterns = 4096;
constexpr size_t kHeaderMinLength = 30;

// The regions of the payload: the XNNGraph flatbuffer and the constant data.
struct Regions {
  const uint8_t* graph;
  size_t graph_size;
  const uint8_t* constants;
  size_t constants_size;
  bool legacy;  // no XH00 header: constants live in XNNGraph.constant_buffer
};

class Parser {
 public:
  Parser(const NamedDataMap* named, size_t delegate, Graph* out)
      : named_(named), delegate_(delegate), g_(out) {}

  Error run(const void* payload, size_t size) {
    ETR_RETURN_IF_ERROR(split(static_cast<const uint8_t*>(payload), size));
    ETR_RETURN_IF_ERROR(verify());
    ETR_RETURN_IF_ERROR(parse_values());
    return parse_nodes();
  }

 private:
  Error split(const uint8_t* p, size_t size) {
    if (size < 8) {
      ETR_FAIL(Error::DelegateInvalidCompatibility,
               "XnnpackBackend: delegate %zu: payload of %zu bytes is too small", delegate_, size);
    }
    if (size < kHeaderMinLength || std::memcmp(p + 4, "XH00", 4) != 0) {
      r_ = Regions{p, size, nullptr, 0, true};
      return Error::Ok;
    }
    const uint16_t header_len = read_le_u16(p + 8);
    const uint64_t fb_off = read_le_u32(p + 10), fb_size = read_le_u32(p + 14);
    const uint64_t cd_off = read_le_u32(p + 18), cd_size = read_le_u64(p + 22);
    if (header_len < kHeaderMinLength || fb_size < 8 || fb_off > size || fb_size > size - fb_off ||
        cd_off < fb_off + fb_size || cd_off > size || cd_size > size - cd_off) {
      ETR_FAIL(Error::DelegateInvalidCompatibility,
               "XnnpackBackend: delegate %zu: XH00 header (length %u, graph at %llu + %llu, "
               "constants at %llu + %llu) does not fit the %zu-byte payload",
               delegate_, header_len, static_cast<unsigned long long>(fb_off),
               static_cast<unsigned long long>(fb_size), static_cast<unsigned long long>(cd_off),
               static_cast<unsigned long long>(cd_size), size);
    }
    r_ = Regions{p + fb_off, static_cast<size_t>(fb_size), p + cd_off, static_cast<size_t>(cd_size),
                 false};
    return Error::Ok;
  }

  Error verify() {
    const char* id = reinterpret_cast<const char*>(r_.graph + 4);
    if (std::memcmp(id, "XN01", 4) != 0 && std::memcmp(id, "XN00", 4) != 0) {
      ETR_FAIL(Error::DelegateInvalidCompatibility,
               "XnnpackBackend: delegate %zu: graph identifier is '%.4s', expected XN01 or XN00",
               delegate_, id);
    }
    if (r_.graph_size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
      ETR_FAIL(Error::DelegateInvalidCompatibility,
               "XnnpackBackend: delegate %zu: graph of %zu bytes is too large", delegate_,
               r_.graph_size);
    }
    flatbuffers::Verifier::Options opts;
    opts.check_alignment = true;
    flatbuffers::Verifier v(r_.graph, r_.graph_size, opts);
    if (!v.VerifyBuffer<fb::XNNGraph>(nullptr)) {
      ETR_FAIL(Error::DelegateInvalidCompatibility,
               "XnnpackBackend: delegate %zu: the XNNGraph flatbuffer (%zu bytes) fails "
               "verification (truncated or corrupted)",
               delegate_, r_.graph_size);
    }
    graph_ = flatbuffers::GetRoot<fb::XNNGraph>(r_.graph);
    g_->num_externs = graph_->num_externs();
    if (g_->num_externs > kMaxExterns) {
      ETR_FAIL(Error::DelegateInvalidCompatibility,
               "XnnpackBackend: delegate %zu: num_externs %u exceeds %u", delegate_,
               g_->num_externs, kMaxExterns);
    }
    return Error::Ok;
  }

  Error fail_value(size_t i, const char* what) {
    ETR_FAIL(Error::DelegateInvalidCompatibility, "XnnpackBackend: delegate %zu: value %zu: %s",
             delegate_, i, what);
  }

  Error parse_values() {
    const auto* xvalues = graph_->xvalues();
    const size_t n = xvalues == nullptr ? 0 : xvalues->size();
    g_->values.assign(n, Value{});
    std::vector<bool> seen(n, false);
    for (size_t i = 0; i < n; ++i) {
      const fb::XValue* xv = xvalues->Get(static_cast<flatbuffers::uoffset_t>(i));
      const fb::XNNTensorValue* tv = nullptr;
      const fb::XNNQuantizedTensorValue* qv = nullptr;
      if (xv != nullptr && xv->xvalue_union_type() == fb::XValueUnion::XNNTensorValue) {
        tv = xv->xvalue_union_as_XNNTensorValue();
      } else if (xv != nullptr &&
                 xv->xvalue_union_type() == fb::XValueUnion::XNNQuantizedTensorValue) {
        qv = xv->xvalue_union_as_XNNQuantizedTensorValue();
        tv = qv == nullptr ? nullptr : qv->tensor_value();
      }
      if (tv == nullptr) return fail_value(i, "not a tensor value");
      const uint32_t id = tv->id_out();
      if (id >= n || seen[id]) {
        ETR_FAIL(Error::DelegateInvalidCompatibility,
                 "XnnpackBackend: delegate %zu: value %zu: id_out %u is out of range or repeated "
                 "(%zu values)",
                 delegate_, i, id, n);
      }
      seen[id] = true;
      Value& v = g_->values[id];
      v.id = id;
      ETR_RETURN_IF_ERROR(parse_tensor(i, tv, &v));
      if (qv != nullptr) ETR_RETURN_IF_ERROR(parse_quant(i, qv, &v));
      ETR_RETURN_IF_ERROR(resolve_constant(i, tv->constant_buffer_idx(), &v));
    }
    return Error::Ok;
  }

  Error parse_tensor(size_t i, const fb::XNNTensorValue* tv, Value* v) {
    const int16_t dt = static_cast<int16_t>(tv->datatype());
    if (dt <= 0 || dt > static_cast<int16_t>(Dtype::BF16)) {
      ETR_FAIL(Error::DelegateInvalidCompatibility,
               "XnnpackBackend: delegate %zu: value %zu: unknown datatype %d", delegate_, i, dt);
    }
    v->dtype = static_cast<Dtype>(dt);
    const auto* dims = tv->dims();
    const size_t rank = dims == nullptr ? 0 : dims->size();
    if (rank > kMaxDims || tv->num_dims() != rank) {
      ETR_FAIL(Error::DelegateInvalidCompatibility,
               "XnnpackBackend: delegate %zu: value %zu: num_dims %u with %zu dims (at most %zu)",
               delegate_, i, tv->num_dims(), rank, kMaxDims);
    }
    v->num_dims = static_cast<uint32_t>(rank);
    size_t numel = 1;
    for (size_t d = 0; d < rank; ++d) {
      v->dims[d] = dims->Get(static_cast<flatbuffers::uoffset_t>(d));
      if (v->dims[d] > (size_t{1} << 31) ||
          (v->dims[d] != 0 && numel > (size_t{1} << 40) / v->dims[d])) {
        return fail_value(i, "dims are too large");
      }
      numel *= v->dims[d];
    }
    v->flags = tv->flags();
    if ((v->flags & ~(kFlagExternalInput | kFlagExternalOutput)) != 0) {
      ETR_FAIL(Error::DelegateInvalidCompatibility,
               "XnnpackBackend: delegate %zu: value %zu: unknown flags 0x%x", delegate_, i,
               v->flags);
    }
    v->external_id = tv->external_id();
    if (v->flags != 0 && v->external_id >= g_->num_externs) {
      ETR_FAIL(Error::DelegateInvalidCompatibility,
               "XnnpackBackend: delegate %zu: value %zu: external_id %u is not below num_externs "
               "%u",
               delegate_, i, v->external_id, g_->num_externs);
    }
    if (tv->dq_datatype() != fb::XNNDatatype::invalid) {
      ETR_FAIL(Error::NotSupported,
               "XnnpackBackend: delegate %zu: value %zu: legacy dq_datatype %d is not supported",
               delegate_, i, static_cast<int>(tv->dq_datatype()));
    }
    return Error::Ok;
  }

  // The bytes of constant_buffer / constant_data entry `idx` (size in *n).
  // *named (when given) gets the index in Graph::named_buffers of the
  // buffer the bytes came from, or stays -1.
  Error constant_bytes(size_t i, uint32_t idx, const uint8_t** p, size_t* n,
                       int32_t* named = nullptr, const char** key = nullptr) {
    if (r_.legacy) {
      const auto* bufs = graph_->constant_buffer();
      if (bufs == nullptr || idx >= bufs->size() || bufs->Get(idx)->storage() == nullptr) {
        ETR_FAIL(Error::DelegateInvalidCompatibility,
                 "XnnpackBackend: delegate %zu: value %zu: constant_buffer %u does not exist",
                 delegate_, i, idx);
      }
      *p = bufs->Get(idx)->storage()->data();
      *n = bufs->Get(idx)->storage()->size();
      return Error::Ok;
    }
    const auto* offsets = graph_->constant_data();
    if (offsets == nullptr || idx >= offsets->size()) {
      ETR_FAIL(Error::DelegateInvalidCompatibility,
               "XnnpackBackend: delegate %zu: value %zu: constant_data %u does not exist",
               delegate_, i, idx);
    }
    const fb::ConstantDataOffset* c = offsets->Get(idx);
    if (c->named_key() != nullptr) {
      if (named_ == nullptr) {
        ETR_FAIL(Error::NotFound,
                 "XnnpackBackend: delegate %zu: value %zu: constant '%s' is named data, but the "
                 "program has none",
                 delegate_, i, c->named_key()->c_str());
      }
      Result<FreeableBuffer> b = named_->get_data(StringView(c->named_key()->c_str()));
      if (!b.ok()) {
        ETR_FAIL(b.error(),
                 "XnnpackBackend: delegate %zu: value %zu: named data '%s' not found (pass the "
                 ".ptd file that holds it)",
                 delegate_, i, c->named_key()->c_str());
      }
      g_->named_buffers.push_back(std::move(*b));
      if (named != nullptr) *named = static_cast<int32_t>(g_->named_buffers.size() - 1);
      if (key != nullptr) *key = c->named_key()->c_str();
      const FreeableBuffer& fbuf = g_->named_buffers.back();
      *p = static_cast<const uint8_t*>(fbuf.data());
      *n = fbuf.size();
      return Error::Ok;
    }
    if (c->offset() > r_.constants_size || c->size() > r_.constants_size - c->offset()) {
      ETR_FAIL(Error::DelegateInvalidCompatibility,
               "XnnpackBackend: delegate %zu: value %zu: constant data at %llu + %llu is outside "
               "the %zu-byte constant region",
               delegate_, i, static_cast<unsigned long long>(c->offset()),
               static_cast<unsigned long long>(c->size()), r_.constants_size);
    }
    *p = r_.constants + c->offset();
    *n = static_cast<size_t>(c->size());
    return Error::Ok;
  }

  Error resolve_constant(size_t i, uint32_t idx, Value* v) {
    if (idx == 0) return Error::Ok;
    if (v->flags != 0) return fail_value(i, "is both external and constant");
    const uint8_t* p = nullptr;
    size_t n = 0;
    ETR_RETURN_IF_ERROR(constant_bytes(i, idx, &p, &n, &v->named_buffer, &v->named_key));
    const size_t need = constant_nbytes(*v);
    if (n < need) {
      ETR_FAIL(Error::DelegateInvalidCompatibility,
               "XnnpackBackend: delegate %zu: value %zu: constant has %zu bytes, its %s shape "
               "needs %zu",
               delegate_, i, n, to_string(v->dtype), need);
    }
    v->data = p;
    return Error::Ok;
  }

  static size_t constant_nbytes(const Value& v) {
    if (v.dtype == Dtype::QCInt4 || v.dtype == Dtype::QBInt4) return (v.numel() + 1) / 2;
    return v.nbytes();
  }

  Error parse_quant(size_t i, const fb::XNNQuantizedTensorValue* qv, Value* v) {
    switch (qv->quant_params_type()) {
      case fb::XNNQuantParams::PerTensorQuant: {
        const auto* q = qv->quant_params_as_PerTensorQuant();
        if (q == nullptr) return fail_value(i, "missing per-tensor parameters");
        v->quant = QuantKind::PerTensor;
        v->scale = q->scale();
        v->zero_point = q->zero_point();
        if (!(v->scale > 0.0f) || !(v->scale < 3.0e38f))
          return fail_value(i, "scale is not positive and finite");
        const bool u8 = v->dtype == Dtype::QUInt8, s8 = v->dtype == Dtype::QInt8;
        const int32_t lo = u8 ? 0 : s8 ? -128 : 0;
        const int32_t hi = u8 ? 255 : s8 ? 127 : 0;
        if ((u8 || s8 || v->dtype == Dtype::QInt32) && (v->zero_point < lo || v->zero_point > hi))
          return fail_value(i, "zero point is outside its datatype's range");
        return Error::Ok;
      }
      case fb::XNNQuantParams::PerChannelQuant: {
        const auto* q = qv->quant_params_as_PerChannelQuant();
        if (q == nullptr) return fail_value(i, "missing per-channel parameters");
        v->quant = QuantKind::PerChannel;
        if (q->channel_dim() < 0 || static_cast<uint32_t>(q->channel_dim()) >= v->num_dims) {
          return fail_value(i, "channel_dim is out of range");
        }
        v->channel_dim = static_cast<uint32_t>(q->channel_dim());
        const size_t channels = v->dims[v->channel_dim];
        if (channels == 0) return fail_value(i, "per-channel quantization over an empty dim");
        // The count is checked against the stored scales before anything is
        // allocated for them: dims alone could ask for billions.
        std::vector<float> scales;
        if (q->scale() != nullptr && q->scale()->size() != 0) {
          if (q->scale()->size() != channels)
            return fail_value(i, "scale count is not the channel count");
          scales.resize(channels);
          for (size_t c = 0; c < channels; ++c)
            scales[c] = q->scale()->Get(static_cast<flatbuffers::uoffset_t>(c));
        } else {
          const uint8_t* p = nullptr;
          size_t n = 0;
          ETR_RETURN_IF_ERROR(constant_bytes(i, q->scale_buffer_idx(), &p, &n));
          if (q->num_scales() != channels || n / sizeof(float) < channels) {
            return fail_value(i, "scale buffer does not hold one float per channel");
          }
          scales.resize(channels);
          std::memcpy(scales.data(), p, channels * sizeof(float));
        }
        for (float s : scales) {
          if (!(s > 0.0f) || !(s < 3.0e38f))
            return fail_value(i, "a channel scale is not positive and finite");
        }
        g_->scale_copies.push_back(std::move(scales));
        v->channel_scales = g_->scale_copies.back().data();
        v->num_channel_scales = channels;
        return Error::Ok;
      }
      case fb::XNNQuantParams::PerTokenDynamicQuant: {
        const auto* q = qv->quant_params_as_PerTokenDynamicQuant();
        if (q == nullptr) return fail_value(i, "missing per-token parameters");
        v->quant = QuantKind::PerToken;
        v->num_nonbatch_dims = q->num_nonbatch_dims();
        return Error::Ok;
      }
      case fb::XNNQuantParams::PerChannelGroupQuant:
        return parse_group_quant(i, qv->quant_params_as_PerChannelGroupQuant(), v);
      default: return fail_value(i, "unknown quantization parameters");
    }
  }

  // Block-wise 4-bit weights: [outputs, inputs] with one bf16 scale per
  // group_size inputs of a row. Scales come (as the official runtime reads
  // them) from the bf16 constant scale_buffer_idx with num_scales entries,
  // else the legacy bf16 list scale_bf16, else the fp32 list `scale`
  // converted to bf16 the official way.
  Error parse_group_quant(size_t i, const fb::PerChannelGroupQuant* q, Value* v) {
    if (q == nullptr) return fail_value(i, "missing per-channel-group parameters");
    v->quant = QuantKind::PerChannelGroup;
    if (v->dtype != Dtype::QBInt4)
      return fail_value(i, "per-channel-group quantization of a datatype other than qbint4");
    if (v->num_dims != 2) return fail_value(i, "qbint4 weights are not 2-d [outputs, inputs]");
    if (q->channel_dim() != 0) return fail_value(i, "qbint4 channel_dim is not 0 (outputs first)");
    if (q->group_size() <= 0) return fail_value(i, "qbint4 group_size is not positive");
    const size_t n = v->dims[0], k = v->dims[1];
    const size_t group = static_cast<size_t>(q->group_size());
    if (k == 0 || k % group != 0)
      return fail_value(i, "qbint4 group_size does not divide the input channels");
    const size_t count = n * (k / group);  // dims are checked: no overflow
    std::vector<float> scales;
    if (q->scale_buffer_idx() != 0) {
      const uint8_t* p = nullptr;
      size_t bytes = 0;
      ETR_RETURN_IF_ERROR(constant_bytes(i, q->scale_buffer_idx(), &p, &bytes));
      if (q->num_scales() != count || bytes / sizeof(uint16_t) < count)
        return fail_value(i,
                          "qbint4 scale buffer does not hold outputs * inputs / group_size bf16");
      scales.resize(count);
      for (size_t c = 0; c < count; ++c) {
        uint16_t b;
        std::memcpy(&b, p + c * sizeof(uint16_t), sizeof b);
        scales[c] = bf16_to_float(b);
      }
    } else if (q->scale_bf16() != nullptr && q->scale_bf16()->size() != 0) {
      if (q->scale_bf16()->size() != count)
        return fail_value(i, "qbint4 scale_bf16 count is not outputs * inputs / group_size");
      scales.resize(count);
      for (size_t c = 0; c < count; ++c)
        scales[c] = bf16_to_float(q->scale_bf16()->Get(static_cast<flatbuffers::uoffset_t>(c)));
    } else {
      if (q->scale() == nullptr || q->scale()->size() != count)
        return fail_value(i, "qbint4 scale count is not outputs * inputs / group_size");
      scales.resize(count);
      for (size_t c = 0; c < count; ++c) {
        const float f = q->scale()->Get(static_cast<flatbuffers::uoffset_t>(c));
        scales[c] = bf16_to_float(float_to_bf16_as_official(f));
      }
    }
    for (float s : scales) {
      if (!(s > 0.0f) || !(s < 3.0e38f))
        return fail_value(i, "a qbint4 block scale is not positive and finite");
    }
    g_->scale_copies.push_back(std::move(scales));
    v->block_scales = g_->scale_copies.back().data();
    v->num_block_scales = count;
    v->group_size = group;
    return Error::Ok;
  }

  Error parse_nodes() {
    const auto* xnodes = graph_->xnodes();
    const size_t n = xnodes == nullptr ? 0 : xnodes->size();
    g_->nodes.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const fb::XNode* x = xnodes->Get(static_cast<flatbuffers::uoffset_t>(i));
      const uint32_t code = x == nullptr ? 0 : static_cast<uint32_t>(x->xnode_union_type());
      const NodeKindDesc* desc = find_node_kind(code);
      if (desc == nullptr) {
        ETR_FAIL(Error::DelegateInvalidCompatibility,
                 "XnnpackBackend: delegate %zu: node %zu has unknown kind %u", delegate_, i, code);
      }
      Node node;
      node.kind = desc->kind;
      node.index = static_cast<uint32_t>(i);
      if (x->output_min_max() != nullptr) {
        node.output_min = x->output_min_max()->output_min();
        node.output_max = x->output_min_max()->output_max();
      }
      const ParseContext ctx{g_->values, delegate_};
      if (x->xnode_union() == nullptr) return ctx.fail(node, "parameters are missing");
      ETR_RETURN_IF_ERROR(desc->parse(ctx, x->xnode_union(), &node));
      g_->nodes.push_back(node);
      take_convert_input_dims(node);
    }
    return Error::Ok;
  }

  // A Convert to qdint8 quantized per image (num_nonbatch_dims > 1: it
  // feeds a convolution) may carry the exporter's NCHW dims where its input
  // is the NHWC transpose of a graph input; XNNPACK gives a Convert's output
  // its input's dims, and so do we (same rank and element count only).
  void take_convert_input_dims(const Node& node) {
    if (node.kind != NodeKind::Convert || node.num_inputs < 1 || node.num_outputs < 1) return;
    if (node.inputs[0] >= g_->values.size() || node.outputs[0] >= g_->values.size()) return;
    const Value& x = g_->values[node.inputs[0]];
    Value& y = g_->values[node.outputs[0]];
    if (y.dtype != Dtype::QDInt8 || y.num_nonbatch_dims <= 1 || x.num_dims != y.num_dims ||
        x.numel() != y.numel())
      return;
    for (uint32_t k = 0; k < x.num_dims; ++k) y.dims[k] = x.dims[k];
  }

  const NamedDataMap* named_;
  size_t delegate_;
  Graph* g_;
  Regions r_{};
  const fb::XNNGraph* graph_ = nullptr;
};

}  // namespace

const char* to_string(Dtype d) {
  switch (d) {
    case Dtype::Invalid: return "invalid";
    case Dtype::Fp32: return "fp32";
    case Dtype::Fp16: return "fp16";
    case Dtype::QInt8: return "qint8";
    case Dtype::QUInt8: return "quint8";
    case Dtype::QInt32: return "qint32";
    case Dtype::QCInt8: return "qcint8";
    case Dtype::QCInt32: return "qcint32";
    case Dtype::QCInt4: return "qcint4";
    case Dtype::QDInt8: return "qdint8";
    case Dtype::QBInt4: return "qbint4";
    case Dtype::QPInt8: return "qpint8";
    case Dtype::Int32: return "int32";
    case Dtype::PFp32: return "pfp32";
    case Dtype::BF16: return "bf16";
  }
  return "unknown";
}

size_t element_size(Dtype d) {
  switch (d) {
    case Dtype::Fp32:
    case Dtype::QInt32:
    case Dtype::QCInt32:
    case Dtype::Int32:
    case Dtype::PFp32: return 4;
    case Dtype::Fp16:
    case Dtype::BF16: return 2;
    case Dtype::QInt8:
    case Dtype::QUInt8:
    case Dtype::QCInt8:
    case Dtype::QDInt8:
    case Dtype::QPInt8: return 1;
    default: return 0;
  }
}

size_t Value::numel() const {
  size_t n = 1;
  for (uint32_t d = 0; d < num_dims; ++d) n *= dims[d];
  return n;
}

const char* to_string(NodeKind k) {
  const NodeKindDesc* d = find_node_kind(k);
  return d == nullptr ? "?" : d->name;
}

Error parse_graph(const void* payload, size_t size, const NamedDataMap* named_data,
                  size_t delegate_index, Graph* out) {
  Parser p(named_data, delegate_index, out);
  return p.run(payload, size);
}

}  // namespace xnnpack
}  // namespace etr

#include "backends/xnnpack/xnnpack_backend.h"

#include <xnnpack.h>

#include <cstring>
#include <new>
#include <vector>

#include "backends/xnnpack/native_nodes.h"
#include "backends/xnnpack/xnnpack_graph.h"
#include "runtime/core/thread_pool.h"
#include "runtime/platform/log.h"
#include "runtime/platform/platform.h"

namespace etr {
namespace {

using xnnpack::Dtype;
using xnnpack::Graph;
using xnnpack::kInvalidId;
using xnnpack::Node;
using xnnpack::NodeKind;
using xnnpack::Value;

// A consecutive stretch of the node list: one XNNPACK runtime, or one node
// run by us.
struct Run {
  bool native = false;
  std::vector<uint32_t> nodes;
  xnn_subgraph_t subgraph = nullptr;
  xnn_runtime_t runtime = nullptr;
  std::vector<xnn_external_value> externals;  // bound once: our buffers never move
};

struct Delegate {
  size_t index = 0;
  Graph graph;
  FreeableBuffer payload;
  // Memory of value id i: our buffer, the constant's data, or null (the
  // value lives inside one XNNPACK runtime).
  std::vector<uint8_t*> buffers;
  std::vector<void*> owned;
  std::vector<Run> runs;
  std::vector<uint32_t> inputs;   // value ids of external inputs
  std::vector<uint32_t> outputs;  // value ids of external outputs
  void* pool_handle = nullptr;    // the pthreadpool the runtimes were created on

  ~Delegate() {
    for (Run& r : runs) {
      if (r.runtime != nullptr) xnn_delete_runtime(r.runtime);
      if (r.subgraph != nullptr) xnn_delete_subgraph(r.subgraph);
    }
    for (void* p : owned) platform_deallocate(p);
    payload.release();
  }
};

bool xnnpack_initialized() {
  static const bool ok = xnn_initialize(nullptr) == xnn_status_success;
  return ok;
}

const char* status_name(xnn_status s) {
  switch (s) {
    case xnn_status_success: return "success";
    case xnn_status_uninitialized: return "uninitialized";
    case xnn_status_invalid_parameter: return "invalid parameter";
    case xnn_status_invalid_state: return "invalid state";
    case xnn_status_unsupported_parameter: return "unsupported parameter";
    case xnn_status_unsupported_hardware: return "unsupported hardware";
    case xnn_status_out_of_memory: return "out of memory";
  }
  return "unknown status";
}

ScalarType scalar_type_of(Dtype d) {
  switch (d) {
    case Dtype::Fp32: return ScalarType::Float;
    case Dtype::Fp16: return ScalarType::Half;
    case Dtype::QInt8:
    case Dtype::QDInt8: return ScalarType::Char;
    case Dtype::QUInt8: return ScalarType::Byte;
    case Dtype::Int32:
    case Dtype::QInt32: return ScalarType::Int;
    case Dtype::BF16: return ScalarType::BFloat16;
    default: return static_cast<ScalarType>(-1);  // no tensor dtype: never matches
  }
}

class Builder {
 public:
  explicit Builder(Delegate* d) : d_(d), g_(d->graph) {}

  Error build(void* pool_handle) {
    ETR_RETURN_IF_ERROR(split_runs());
    ETR_RETURN_IF_ERROR(place_values());
    for (Run& r : d_->runs) {
      if (!r.native) ETR_RETURN_IF_ERROR(define_subgraph(r));
    }
    return create_runtimes(d_, pool_handle);
  }

  // (Re)creates every XNNPACK runtime on `pool_handle`.
  static Error create_runtimes(Delegate* d, void* pool_handle) {
    for (Run& r : d->runs) {
      if (r.native) continue;
      if (r.runtime != nullptr) {
        xnn_delete_runtime(r.runtime);
        r.runtime = nullptr;
      }
      xnn_status s =
          xnn_create_runtime_v2(r.subgraph, static_cast<pthreadpool_t>(pool_handle), 0, &r.runtime);
      if (s == xnn_status_success)
        s = xnn_setup_runtime(r.runtime, r.externals.size(), r.externals.data());
      if (s != xnn_status_success) {
        ETR_FAIL(Error::DelegateInvalidCompatibility,
                 "XnnpackBackend: delegate %zu: XNNPACK could not create the runtime for nodes "
                 "%u..%u: %s",
                 d->index, r.nodes.front(), r.nodes.back(), status_name(s));
      }
    }
    d->pool_handle = pool_handle;
    return Error::Ok;
  }

 private:
  Error split_runs() {
    for (const Node& n : g_.nodes) {
      const bool native = xnnpack::is_native_node(n.kind);
      if (native) {
        ETR_RETURN_IF_ERROR(xnnpack::check_native_node(g_, n, d_->index));
      } else {
        ETR_RETURN_IF_ERROR(xnnpack::check_xnnpack_node(g_, n, d_->index));
      }
      if (native || d_->runs.empty() || d_->runs.back().native) d_->runs.emplace_back();
      d_->runs.back().native = native;
      d_->runs.back().nodes.push_back(n.index);
    }
    return Error::Ok;
  }

  uint8_t* allocate(size_t bytes) {
    void* p = platform_allocate(bytes + XNN_EXTRA_BYTES, 64);
    if (p != nullptr) {
      d_->owned.push_back(p);
      std::memset(p, 0, bytes + XNN_EXTRA_BYTES);
    }
    return static_cast<uint8_t*>(p);
  }

  // Gives a buffer to every value that crosses runs, is touched by a native
  // node, or is external to the delegate.
  Error place_values() {
    const size_t nv = g_.values.size();
    std::vector<int> producer(nv, -1);
    std::vector<bool> needs(nv, false);
    std::vector<bool> consumed(nv, false);
    for (size_t r = 0; r < d_->runs.size(); ++r) {
      for (uint32_t ni : d_->runs[r].nodes) {
        const Node& n = g_.nodes[ni];
        for (uint32_t k = 0; k < n.num_outputs; ++k) {
          const uint32_t id = n.outputs[k];
          if (producer[id] != -1 || g_.values[id].data != nullptr ||
              g_.values[id].is_external_input()) {
            ETR_FAIL(Error::DelegateInvalidCompatibility,
                     "XnnpackBackend: delegate %zu: node %u (%s): output value %u is written "
                     "twice, or is an input or a constant",
                     d_->index, n.index, xnnpack::to_string(n.kind), id);
          }
          producer[id] = static_cast<int>(r);
          if (d_->runs[r].native) needs[id] = true;
        }
        for (uint32_t k = 0; k < n.num_inputs; ++k) {
          const uint32_t id = n.inputs[k];
          if (id == kInvalidId) continue;
          if (d_->runs[r].native) needs[id] = true;
          consumed[id] = true;
          if (producer[id] != -1 && producer[id] != static_cast<int>(r)) needs[id] = true;
          if (producer[id] == -1 && g_.values[id].data == nullptr &&
              !g_.values[id].is_external_input()) {
            ETR_FAIL(Error::DelegateInvalidCompatibility,
                     "XnnpackBackend: delegate %zu: node %u (%s): input value %u is read before "
                     "any node writes it",
                     d_->index, n.index, xnnpack::to_string(n.kind), id);
          }
        }
      }
    }
    // XNNPACK (2022) gives no memory to a result nothing reads: let it
    // write such a value into a buffer of ours instead.
    for (size_t id = 0; id < nv; ++id) {
      if (producer[id] != -1 && !consumed[id]) needs[id] = true;
    }
    d_->buffers.assign(nv, nullptr);
    for (size_t id = 0; id < nv; ++id) {
      const Value& v = g_.values[id];
      if (v.data != nullptr) {
        d_->buffers[id] = const_cast<uint8_t*>(v.data);  // XNNPACK and native nodes only read it
        continue;
      }
      // XNNPACK sizes its own internal tensors from the dims too: the cap
      // covers every non-constant value, ours or XNNPACK's.
      total_bytes_ += v.nbytes();
      if (v.nbytes() > kMaxBufferBytes || total_bytes_ > kMaxBufferBytes) {
        ETR_FAIL(Error::DelegateMemoryAllocationFailed,
                 "XnnpackBackend: delegate %zu: value %zu needs %zu bytes; the delegate's "
                 "values would pass the %zu-byte limit",
                 d_->index, id, v.nbytes(), kMaxBufferBytes);
      }
      if (v.is_external_input()) d_->inputs.push_back(static_cast<uint32_t>(id));
      if (v.is_external_output()) {
        if (producer[id] == -1) {
          ETR_FAIL(Error::DelegateInvalidCompatibility,
                   "XnnpackBackend: delegate %zu: output value %zu is never written", d_->index,
                   id);
        }
        d_->outputs.push_back(static_cast<uint32_t>(id));
      }
      if (!needs[id] && v.flags == 0) continue;
      if (xnnpack::element_size(v.dtype) == 0) {
        ETR_FAIL(Error::NotSupported,
                 "XnnpackBackend: delegate %zu: value %zu of datatype %s cannot be held between "
                 "runs",
                 d_->index, id, xnnpack::to_string(v.dtype));
      }
      d_->buffers[id] = allocate(v.nbytes());
      if (d_->buffers[id] == nullptr) {
        ETR_FAIL(Error::DelegateMemoryAllocationFailed,
                 "XnnpackBackend: delegate %zu: cannot allocate %zu bytes for value %zu", d_->index,
                 v.nbytes(), id);
      }
    }
    return Error::Ok;
  }

  Error define_value(Run& r, uint32_t id, std::vector<uint32_t>* xids,
                     const std::vector<bool>& produced) {
    if (id == kInvalidId || (*xids)[id] != XNN_INVALID_VALUE_ID) return Error::Ok;
    const Value& v = g_.values[id];
    const bool external = v.data == nullptr && d_->buffers[id] != nullptr;
    uint32_t ext = XNN_INVALID_VALUE_ID, flags = 0;
    if (external) {
      ext = static_cast<uint32_t>(r.externals.size());
      flags = produced[id] ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : XNN_VALUE_FLAG_EXTERNAL_INPUT;
      r.externals.push_back(xnn_external_value{ext, d_->buffers[id]});
    }
    size_t dims[xnnpack::kMaxDims];
    for (uint32_t k = 0; k < v.num_dims; ++k) dims[k] = v.dims[k];
    uint32_t xid = XNN_INVALID_VALUE_ID;
    xnn_status s = xnn_status_unsupported_parameter;
    switch (v.dtype) {
      case Dtype::Fp32:
        s = xnn_define_tensor_value(r.subgraph, xnn_datatype_fp32, v.num_dims, dims, v.data, ext,
                                    flags, &xid);
        break;
      case Dtype::QInt8:
      case Dtype::QUInt8:
      case Dtype::QInt32:
        if (v.quant == xnnpack::QuantKind::PerTensor) {
          const xnn_datatype t = v.dtype == Dtype::QInt8    ? xnn_datatype_qint8
                                 : v.dtype == Dtype::QUInt8 ? xnn_datatype_quint8
                                                            : xnn_datatype_qint32;
          s = xnn_define_quantized_tensor_value(r.subgraph, t, v.zero_point, v.scale, v.num_dims,
                                                dims, v.data, ext, flags, &xid);
        }
        break;
      case Dtype::QCInt8:
      case Dtype::QCInt32:
        if (v.quant == xnnpack::QuantKind::PerChannel) {
          s = xnn_define_channelwise_quantized_tensor_value(
              r.subgraph, v.dtype == Dtype::QCInt8 ? xnn_datatype_qcint8 : xnn_datatype_qcint32,
              v.channel_scales, v.num_dims, v.channel_dim, dims, v.data, ext, flags, &xid);
        }
        break;
      default: break;
    }
    if (s != xnn_status_success) {
      ETR_FAIL(s == xnn_status_unsupported_parameter ? Error::NotSupported
                                                     : Error::DelegateInvalidCompatibility,
               "XnnpackBackend: delegate %zu: value %u (%s, %u dims): this XNNPACK cannot define "
               "it: %s",
               d_->index, id, xnnpack::to_string(v.dtype), v.num_dims, status_name(s));
    }
    (*xids)[id] = xid;
    return Error::Ok;
  }

  Error define_subgraph(Run& r) {
    // Count the externals first: XNNPACK wants the number up front.
    std::vector<bool> touched(g_.values.size(), false), produced(g_.values.size(), false);
    uint32_t num_ext = 0;
    for (uint32_t ni : r.nodes) {
      const Node& n = g_.nodes[ni];
      for (uint32_t k = 0; k < n.num_outputs; ++k) produced[n.outputs[k]] = true;
      auto touch = [&](uint32_t id) {
        if (id == kInvalidId || touched[id]) return;
        touched[id] = true;
        if (g_.values[id].data == nullptr && d_->buffers[id] != nullptr) ++num_ext;
      };
      for (uint32_t k = 0; k < n.num_inputs; ++k) touch(n.inputs[k]);
      for (uint32_t k = 0; k < n.num_outputs; ++k) touch(n.outputs[k]);
    }
    xnn_status s = xnn_create_subgraph(num_ext, 0, &r.subgraph);
    if (s != xnn_status_success) {
      ETR_FAIL(Error::DelegateMemoryAllocationFailed,
               "XnnpackBackend: delegate %zu: xnn_create_subgraph failed: %s", d_->index,
               status_name(s));
    }
    std::vector<uint32_t> xids(g_.values.size(), XNN_INVALID_VALUE_ID);
    for (uint32_t ni : r.nodes) {
      const Node& n = g_.nodes[ni];
      for (uint32_t k = 0; k < n.num_inputs; ++k)
        ETR_RETURN_IF_ERROR(define_value(r, n.inputs[k], &xids, produced));
      for (uint32_t k = 0; k < n.num_outputs; ++k)
        ETR_RETURN_IF_ERROR(define_value(r, n.outputs[k], &xids, produced));
      ETR_RETURN_IF_ERROR(define_node(r, n, xids));
    }
    return Error::Ok;
  }

  Error define_node(Run& r, const Node& n, const std::vector<uint32_t>& xids) {
    auto x = [&](uint32_t k) {
      return n.inputs[k] == kInvalidId ? XNN_INVALID_VALUE_ID : xids[n.inputs[k]];
    };
    const uint32_t y = xids[n.outputs[0]];
    const float lo = n.output_min, hi = n.output_max;
    const uint32_t* p = n.params;
    xnn_subgraph_t sg = r.subgraph;
    xnn_status s = xnn_status_unsupported_parameter;
    switch (n.kind) {
      case NodeKind::Add: s = xnn_define_add2(sg, lo, hi, x(0), x(1), y, n.flags); break;
      case NodeKind::Subtract: s = xnn_define_subtract(sg, lo, hi, x(0), x(1), y, n.flags); break;
      case NodeKind::Multiply: s = xnn_define_multiply2(sg, lo, hi, x(0), x(1), y, n.flags); break;
      case NodeKind::Div: s = xnn_define_divide(sg, lo, hi, x(0), x(1), y, n.flags); break;
      case NodeKind::Maximum: s = xnn_define_maximum2(sg, x(0), x(1), y, n.flags); break;
      case NodeKind::Minimum: s = xnn_define_minimum2(sg, x(0), x(1), y, n.flags); break;
      case NodeKind::PReLU: s = xnn_define_prelu(sg, x(0), x(1), y, n.flags); break;
      case NodeKind::FullyConnected:
        if (g_.values[n.inputs[1]].dtype == Dtype::QCInt8) {
          s = define_channelwise_fully_connected(sg, n, x(0), x(2), y);
        } else {
          s = xnn_define_fully_connected(sg, lo, hi, x(0), x(1), x(2), y, n.flags);
        }
        break;
      case NodeKind::Conv2d:
        s = xnn_define_convolution_2d(sg, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8],
                                      p[9], p[12], p[10], p[11], lo, hi, x(0), x(1), x(2), y,
                                      n.flags);
        break;
      case NodeKind::DepthwiseConv2d:
        if (p[10] == 0 || p[11] % p[10] != 0) break;
        s = xnn_define_depthwise_convolution_2d(sg, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7],
                                                p[8], p[9], p[11] / p[10], p[12], lo, hi, x(0),
                                                x(1), x(2), y, n.flags);
        break;
      case NodeKind::ConvTranspose2d:
        s = xnn_define_deconvolution_2d(sg, p[0], p[1], p[2], p[3], p[13], p[14], p[4], p[5], p[6],
                                        p[7], p[8], p[9], p[12], p[10], p[11], lo, hi, x(0), x(1),
                                        x(2), y, n.flags);
        break;
      case NodeKind::AvgPooling2d:
        s = xnn_define_average_pooling_2d(sg, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], lo,
                                          hi, x(0), y, n.flags);
        break;
      case NodeKind::MaxPooling2d:
        s = xnn_define_max_pooling_2d(sg, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8],
                                      p[9], lo, hi, x(0), y, n.flags);
        break;
      case NodeKind::ArgMaxPooling2d:
        s = xnn_define_argmax_pooling_2d(sg, p[0], p[1], p[2], p[3], p[4], p[5], x(0), y,
                                         xids[n.outputs[1]], n.flags);
        break;
      case NodeKind::GlobalAvgPooling2d:
        s = xnn_define_global_average_pooling_2d(sg, lo, hi, x(0), y, n.flags);
        break;
      case NodeKind::Clamp: s = xnn_define_clamp(sg, lo, hi, x(0), y, n.flags); break;
      case NodeKind::Softmax: s = xnn_define_softmax(sg, x(0), y, n.flags); break;
      case NodeKind::Sigmoid: s = xnn_define_sigmoid(sg, x(0), y, n.flags); break;
      case NodeKind::Floor: s = xnn_define_floor(sg, x(0), y, n.flags); break;
      case NodeKind::Ceiling: s = xnn_define_ceiling(sg, x(0), y, n.flags); break;
      case NodeKind::SquareRoot: s = xnn_define_square_root(sg, x(0), y, n.flags); break;
      case NodeKind::Hardswish: s = xnn_define_hardswish(sg, x(0), y, n.flags); break;
      case NodeKind::Negate: s = xnn_define_negate(sg, x(0), y, n.flags); break;
      case NodeKind::Square: s = xnn_define_square(sg, x(0), y, n.flags); break;
      case NodeKind::Abs: s = xnn_define_abs(sg, x(0), y, n.flags); break;
      case NodeKind::Convert: s = xnn_define_convert(sg, x(0), y, n.flags); break;
      case NodeKind::LeakyReLU: s = xnn_define_leaky_relu(sg, n.alpha, x(0), y, n.flags); break;
      case NodeKind::ELU: s = xnn_define_elu(sg, n.alpha, x(0), y, n.flags); break;
      case NodeKind::StaticReshape:
        s = xnn_define_static_reshape(sg, n.list_len, n.list_a, x(0), y, n.flags);
        break;
      case NodeKind::StaticConstantPad:
        s = xnn_define_static_constant_pad(sg, n.list_a, n.list_b, n.alpha, x(0), y, n.flags);
        break;
      case NodeKind::StaticResizeBilinear2D:
        s = xnn_define_static_resize_bilinear_2d(sg, p[0], p[1], x(0), y, n.flags);
        break;
      default: break;
    }
    if (s != xnn_status_success) {
      ETR_FAIL(Error::DelegateInvalidCompatibility,
               "XnnpackBackend: delegate %zu: node %u (%s): XNNPACK refused the definition: %s",
               d_->index, n.index, xnnpack::to_string(n.kind), status_name(s));
    }
    return Error::Ok;
  }

  // XNNPACK 2022 has no fully connected with per-channel (qc8) weights but
  // has a qc8 convolution: x [N.., K] -> [N, 1, 1, K], a 1x1 convolution
  // with the weights viewed as [O, 1, 1, K], then back to [N.., O]. Same
  // integer arithmetic, same requantization.
  xnn_status define_channelwise_fully_connected(xnn_subgraph_t sg, const Node& n, uint32_t x,
                                                uint32_t bias, uint32_t y) {
    const Value& xv = g_.values[n.inputs[0]];
    const Value& wv = g_.values[n.inputs[1]];
    const Value& yv = g_.values[n.outputs[0]];
    if ((n.flags & XNN_FLAG_TRANSPOSE_WEIGHTS) != 0 || xv.quant != xnnpack::QuantKind::PerTensor ||
        yv.quant != xnnpack::QuantKind::PerTensor || wv.channel_dim != 0 || wv.num_dims != 2) {
      return xnn_status_unsupported_parameter;
    }
    const size_t k = wv.dims[1], o = wv.dims[0], rows = xv.numel() / k;
    const xnn_datatype xt = xv.dtype == Dtype::QInt8 ? xnn_datatype_qint8 : xnn_datatype_quint8;
    const size_t x4_dims[4] = {rows, 1, 1, k};
    const size_t w4_dims[4] = {o, 1, 1, k};
    const size_t y4_dims[4] = {rows, 1, 1, o};
    uint32_t x4 = XNN_INVALID_VALUE_ID, w4 = XNN_INVALID_VALUE_ID, y4 = XNN_INVALID_VALUE_ID;
    xnn_status s = xnn_define_quantized_tensor_value(sg, xt, xv.zero_point, xv.scale, 4, x4_dims,
                                                     nullptr, XNN_INVALID_VALUE_ID, 0, &x4);
    if (s == xnn_status_success) {
      s = xnn_define_channelwise_quantized_tensor_value(sg, xnn_datatype_qcint8, wv.channel_scales,
                                                        4, 0, w4_dims, wv.data,
                                                        XNN_INVALID_VALUE_ID, 0, &w4);
    }
    if (s == xnn_status_success) {
      s = xnn_define_quantized_tensor_value(sg, xt, yv.zero_point, yv.scale, 4, y4_dims, nullptr,
                                            XNN_INVALID_VALUE_ID, 0, &y4);
    }
    if (s == xnn_status_success) s = xnn_define_static_reshape(sg, 4, x4_dims, x, x4, 0);
    if (s == xnn_status_success) {
      s = xnn_define_convolution_2d(sg, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, k, o, n.output_min,
                                    n.output_max, x4, w4, bias, y4, 0);
    }
    if (s == xnn_status_success) {
      size_t y_dims[xnnpack::kMaxDims];
      for (uint32_t i = 0; i < yv.num_dims; ++i) y_dims[i] = yv.dims[i];
      s = xnn_define_static_reshape(sg, yv.num_dims, y_dims, y4, y, 0);
    }
    return s;
  }

  // A payload may not make one delegate hold more than this in value
  // buffers (a hostile one could otherwise ask for terabytes).
  static constexpr size_t kMaxBufferBytes = size_t{1} << 30;

  Delegate* d_;
  const Graph& g_;
  size_t total_bytes_ = 0;
};

Error bind_input(const Delegate& d, uint32_t id, Span<EValue*> args) {
  const Value& v = d.graph.values[id];
  if (v.external_id >= args.size() || !args[v.external_id]->is_tensor()) {
    ETR_FAIL(Error::InvalidArgument,
             "XnnpackBackend: delegate %zu: input value %u expects a tensor at argument %u (%zu "
             "arguments)",
             d.index, id, v.external_id, args.size());
  }
  const Tensor& t = args[v.external_id]->to_tensor();
  if (t.dtype() != scalar_type_of(v.dtype) || t.nbytes() != v.nbytes()) {
    ETR_FAIL(Error::InvalidArgument,
             "XnnpackBackend: delegate %zu: argument %u is %s with %zu bytes; the delegate was "
             "built for %s with %zu bytes (shapes are static in this XNNPACK)",
             d.index, v.external_id, to_string(t.dtype()), t.nbytes(),
             to_string(scalar_type_of(v.dtype)), v.nbytes());
  }
  if (t.nbytes() != 0 && t.const_data() == nullptr) {
    ETR_FAIL(Error::InvalidState, "XnnpackBackend: delegate %zu: argument %u has no memory",
             d.index, v.external_id);
  }
  if (t.nbytes() != 0) std::memcpy(d.buffers[id], t.const_data(), t.nbytes());
  return Error::Ok;
}

Error write_output(const Delegate& d, uint32_t id, Span<EValue*> args) {
  const Value& v = d.graph.values[id];
  if (v.external_id >= args.size() || !args[v.external_id]->is_tensor()) {
    ETR_FAIL(Error::InvalidArgument,
             "XnnpackBackend: delegate %zu: output value %u expects a tensor at argument %u",
             d.index, id, v.external_id);
  }
  Tensor& t = args[v.external_id]->to_tensor();
  const bool widen = v.dtype == Dtype::Int32 && t.dtype() == ScalarType::Long;
  const size_t need = widen ? v.numel() * 8 : v.nbytes();
  if ((!widen && t.dtype() != scalar_type_of(v.dtype)) ||
      static_cast<size_t>(t.numel()) != v.numel() || t.nbytes() != need ||
      (need != 0 && t.mutable_data() == nullptr)) {
    ETR_FAIL(Error::InvalidArgument,
             "XnnpackBackend: delegate %zu: output argument %u is %s with %zu bytes; the delegate "
             "writes %s with %zu elements",
             d.index, v.external_id, to_string(t.dtype()), t.nbytes(), xnnpack::to_string(v.dtype),
             v.numel());
  }
  if (widen) {
    const int32_t* s = reinterpret_cast<const int32_t*>(d.buffers[id]);
    int64_t* o = static_cast<int64_t*>(t.mutable_data());
    for (size_t i = 0; i < v.numel(); ++i) o[i] = s[i];
  } else if (need != 0) {
    std::memcpy(t.mutable_data(), d.buffers[id], need);
  }
  return Error::Ok;
}

class XnnpackBackend final : public BackendInterface {
 public:
  bool is_available() const override { return xnnpack_initialized(); }

  Result<DelegateHandle*> init(BackendInitContext& ctx, FreeableBuffer* processed,
                               Span<const CompileSpec> specs) const override {
    (void)specs;
    if (!xnnpack_initialized()) {
      ETR_FAIL(Error::BackendMissing, "XnnpackBackend: XNNPACK does not support this CPU");
    }
    void* mem = platform_allocate(sizeof(Delegate), alignof(Delegate));
    if (mem == nullptr) {
      ETR_FAIL(Error::DelegateMemoryAllocationFailed, "XnnpackBackend: delegate %zu: out of memory",
               ctx.delegate_index);
    }
    Delegate* d = new (mem) Delegate();
    d->index = ctx.delegate_index;
    d->payload = std::move(*processed);
    Error err = xnnpack::parse_graph(d->payload.data(), d->payload.size(), ctx.named_data,
                                     ctx.delegate_index, &d->graph);
    if (err == Error::Ok) {
      void* pool = ctx.thread_pool == nullptr ? nullptr : ctx.thread_pool->native_handle();
      err = Builder(d).build(pool);
    }
    if (err != Error::Ok) {
      destroy(d);
      return err;
    }
    return static_cast<DelegateHandle*>(d);
  }

  Error execute(BackendExecutionContext& ctx, DelegateHandle* handle,
                Span<EValue*> args) const override {
    Delegate* d = static_cast<Delegate*>(handle);
    if (d == nullptr) ETR_FAIL(Error::DelegateInvalidHandle, "XnnpackBackend: null delegate");
    void* pool = ctx.thread_pool == nullptr ? nullptr : ctx.thread_pool->native_handle();
    if (pool != d->pool_handle) ETR_RETURN_IF_ERROR(Builder::create_runtimes(d, pool));
    for (uint32_t id : d->inputs) ETR_RETURN_IF_ERROR(bind_input(*d, id, args));
    for (const Run& r : d->runs) {
      if (r.native) {
        xnnpack::run_native_node(d->graph, d->graph.nodes[r.nodes[0]], d->buffers.data(),
                                 ctx.thread_pool);
        continue;
      }
      const xnn_status s = xnn_invoke_runtime(r.runtime);
      if (s != xnn_status_success) {
        ETR_FAIL(Error::Internal,
                 "XnnpackBackend: delegate %zu: XNNPACK run of nodes %u..%u failed: %s", d->index,
                 r.nodes.front(), r.nodes.back(), status_name(s));
      }
    }
    for (uint32_t id : d->outputs) ETR_RETURN_IF_ERROR(write_output(*d, id, args));
    return Error::Ok;
  }

  void destroy(DelegateHandle* handle) const override {
    Delegate* d = static_cast<Delegate*>(handle);
    if (d == nullptr) return;
    d->~Delegate();
    platform_deallocate(d);
  }
};

const XnnpackBackend kBackend;

}  // namespace

const BackendInterface& xnnpack_backend() { return kBackend; }

Error register_xnnpack_backend(BackendRegistry* registry) {
  BackendRegistry& r = registry == nullptr ? default_backend_registry() : *registry;
  return r.add(Backend{"XnnpackBackend", &kBackend});
}

}  // namespace etr

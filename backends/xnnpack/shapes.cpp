#include "backends/xnnpack/shapes.h"

#include "runtime/platform/log.h"

namespace etr {
namespace xnnpack {
namespace {

constexpr uint32_t kSamePadding = 0x4;  // XNN_FLAG_TENSORFLOW_SAME_PADDING

class Inference {
 public:
  Inference(const Values& bounds, Values* v, size_t d) : ub_(bounds), v_(*v), d_(d) {}

  Error fail(const Node& n, const char* what) const {
    ETR_FAIL(Error::NotSupported,
             "XnnpackBackend: delegate %zu: node %u (%s): cannot derive the output shape for "
             "the new input shape: %s",
             d_, n.index, to_string(n.kind), what);
  }

  // Output dims of node n from its (current) inputs.
  Error node(const Node& n) {
    Value& y = v_[n.outputs[0]];
    const Value& x = v_[n.inputs[0]];
    const uint32_t* p = n.params;
    switch (n.kind) {
      case NodeKind::Add:
      case NodeKind::Subtract:
      case NodeKind::Multiply:
      case NodeKind::Div:
      case NodeKind::Maximum:
      case NodeKind::Minimum: return broadcast(n, x, v_[n.inputs[1]], &y);
      case NodeKind::FullyConnected: {
        const Value& w = v_[n.inputs[1]];
        if (w.num_dims != 2 || x.num_dims == 0) return fail(n, "unexpected ranks");
        const size_t o = (n.flags & 0x1u) != 0 ? w.dims[1] : w.dims[0];
        const size_t k = x.dims[x.num_dims - 1];
        if (y.num_dims == x.num_dims) {
          copy_dims(x, &y);
        } else if (y.num_dims == 2) {
          y.dims[0] = k == 0 ? 0 : x.numel() / k;
        } else {
          return fail(n, "output rank is neither the input's nor 2");
        }
        y.dims[y.num_dims - 1] = o;
        return Error::Ok;
      }
      case NodeKind::Conv2d:
      case NodeKind::DepthwiseConv2d:
      case NodeKind::AvgPooling2d:
      case NodeKind::MaxPooling2d: {
        if (x.num_dims != 4 || y.num_dims != 4) return fail(n, "not 4-d NHWC");
        const bool conv = n.kind == NodeKind::Conv2d || n.kind == NodeKind::DepthwiseConv2d;
        const uint32_t dh = n.kind == NodeKind::AvgPooling2d ? 1 : p[8];
        const uint32_t dw = n.kind == NodeKind::AvgPooling2d ? 1 : p[9];
        size_t oh = 0, ow = 0;
        if (!window(n, x.dims[1], p[0] + p[2], p[4], p[6], dh, &oh) ||
            !window(n, x.dims[2], p[1] + p[3], p[5], p[7], dw, &ow))
          return fail(n, "the window does not fit the input");
        y.dims[0] = x.dims[0];
        y.dims[1] = oh;
        y.dims[2] = ow;
        if (!conv) y.dims[3] = x.dims[3];
        return Error::Ok;
      }
      case NodeKind::GlobalAvgPooling2d:
        if (x.num_dims != 4 || y.num_dims != 4) return fail(n, "not 4-d NHWC");
        y.dims[0] = x.dims[0];
        y.dims[1] = y.dims[2] = 1;
        y.dims[3] = x.dims[3];
        return Error::Ok;
      case NodeKind::StaticReshape: return reshape(n, x, &y);
      case NodeKind::StaticTranspose:
        if (x.num_dims != n.list_len || y.num_dims != n.list_len) return fail(n, "rank");
        for (uint32_t i = 0; i < n.list_len; ++i) {
          if (n.list_a[i] >= x.num_dims) return fail(n, "perm is out of range");
          y.dims[i] = x.dims[n.list_a[i]];
        }
        return Error::Ok;
      case NodeKind::Concatenate2:
      case NodeKind::Concatenate3:
      case NodeKind::Concatenate4:
      case NodeKind::Concatenate5: {
        const uint32_t axis = n.params[0];
        if (axis >= x.num_dims || y.num_dims != x.num_dims) return fail(n, "axis or rank");
        copy_dims(x, &y);
        size_t total = 0;
        for (uint32_t k = 0; k < n.num_inputs; ++k) {
          if (v_[n.inputs[k]].num_dims != x.num_dims) return fail(n, "input ranks differ");
          total += v_[n.inputs[k]].dims[axis];
        }
        y.dims[axis] = total;
        return Error::Ok;
      }
      case NodeKind::StaticSlice: {
        const Value& xb = ub_[n.inputs[0]];
        if (x.num_dims != n.list_len || y.num_dims != n.list_len) return fail(n, "rank");
        for (uint32_t i = 0; i < n.list_len; ++i) {
          const size_t off = n.list_a[i];
          if (off > x.dims[i]) return fail(n, "offset is past the input");
          // A size of 0, or one reaching the bound's end, follows the input.
          const bool to_end =
              n.list_b[i] == 0 || (off <= xb.dims[i] && n.list_b[i] == xb.dims[i] - off);
          y.dims[i] = to_end ? x.dims[i] - off : n.list_b[i];
          if (y.dims[i] > x.dims[i] - off) return fail(n, "slice is past the input");
        }
        return Error::Ok;
      }
      case NodeKind::BatchMatrixMultiply: {
        const Value& b = v_[n.inputs[1]];
        const uint32_t r = x.num_dims;
        if (r < 2 || b.num_dims != r || y.num_dims != r) return fail(n, "ranks");
        copy_dims(x, &y);
        y.dims[r - 1] = b.dims[r - 1];
        return Error::Ok;
      }
      case NodeKind::StaticConstantPad:
        if (y.num_dims != x.num_dims) return fail(n, "rank");
        for (uint32_t i = 0; i < x.num_dims; ++i) y.dims[i] = x.dims[i] + n.list_a[i] + n.list_b[i];
        return Error::Ok;
      case NodeKind::StaticResizeBilinear2D:
        if (x.num_dims != 4 || y.num_dims != 4) return fail(n, "not 4-d NHWC");
        y.dims[0] = x.dims[0];
        y.dims[1] = p[0];
        y.dims[2] = p[1];
        y.dims[3] = x.dims[3];
        return Error::Ok;
      case NodeKind::PReLU:
      case NodeKind::Softmax:
      case NodeKind::Sigmoid:
      case NodeKind::Clamp:
      case NodeKind::Floor:
      case NodeKind::Ceiling:
      case NodeKind::SquareRoot:
      case NodeKind::Hardswish:
      case NodeKind::Negate:
      case NodeKind::Square:
      case NodeKind::Abs:
      case NodeKind::LeakyReLU:
      case NodeKind::ELU:
      case NodeKind::Convert:
      case NodeKind::ReciprocalSquareRoot:
      case NodeKind::Log:
      case NodeKind::Gelu:
      case NodeKind::Tanh:
      case NodeKind::Exp:
      case NodeKind::Sin:
      case NodeKind::Copy:
      case NodeKind::Cos:
        if (y.num_dims != x.num_dims) return fail(n, "input and output ranks differ");
        copy_dims(x, &y);
        return Error::Ok;
      default: return fail(n, "this node kind has static shapes only");
    }
  }

  // Every value must fit the buffer sized by its bound: each dim at most
  // the exported one (which also keeps the element counts from overflowing).
  Error within_bounds(size_t id) const {
    for (uint32_t i = 0; i < v_[id].num_dims; ++i) {
      if (v_[id].dims[i] > ub_[id].dims[i]) {
        ETR_FAIL(Error::InvalidArgument,
                 "XnnpackBackend: delegate %zu: value %zu would have size %zu at dim %u, more "
                 "than the %zu it was exported with",
                 d_, id, v_[id].dims[i], i, ub_[id].dims[i]);
      }
    }
    return Error::Ok;
  }

 private:
  static void copy_dims(const Value& from, Value* to) {
    for (uint32_t i = 0; i < from.num_dims; ++i) to->dims[i] = from.dims[i];
  }

  static bool window(const Node& n, size_t in, uint32_t pad, uint32_t kernel, uint32_t stride,
                     uint32_t dilation, size_t* out) {
    if (stride == 0) return false;
    if ((n.flags & kSamePadding) != 0) {
      *out = (in + stride - 1) / stride;
      return true;
    }
    if (kernel == 0 || dilation == 0) return false;
    const size_t span = (static_cast<size_t>(kernel) - 1) * dilation + 1;
    if (in + pad < span) return false;
    *out = (in + pad - span) / stride + 1;
    return true;
  }

  Error broadcast(const Node& n, const Value& a, const Value& b, Value* y) const {
    const uint32_t r = a.num_dims > b.num_dims ? a.num_dims : b.num_dims;
    if (y->num_dims != r) return fail(n, "output rank is not the broadcast rank");
    for (uint32_t i = 0; i < r; ++i) {
      const size_t da = i < a.num_dims ? a.dims[a.num_dims - 1 - i] : 1;
      const size_t db = i < b.num_dims ? b.dims[b.num_dims - 1 - i] : 1;
      if (da != db && da != 1 && db != 1) return fail(n, "operand dims do not broadcast");
      y->dims[r - 1 - i] = da == 1 ? db : da;
    }
    return Error::Ok;
  }

  // new_shape: fixed dims, at most one 0 (inferred from the element count).
  Error reshape(const Node& n, const Value& x, Value* y) const {
    if (n.list_len != y->num_dims) return fail(n, "new_shape length differs from the rank");
    size_t known = 1;
    int inferred = -1;
    for (uint32_t i = 0; i < n.list_len; ++i) {
      if (n.list_a[i] == 0) {
        if (inferred >= 0) return fail(n, "more than one inferred dim");
        inferred = static_cast<int>(i);
      } else {
        known *= n.list_a[i];
      }
    }
    const size_t total = x.numel();
    if (inferred < 0) {
      if (known != total) return fail(n, "new_shape does not hold the input's elements");
      for (uint32_t i = 0; i < n.list_len; ++i) y->dims[i] = n.list_a[i];
      return Error::Ok;
    }
    if (known == 0 || total % known != 0) return fail(n, "element count is not divisible");
    for (uint32_t i = 0; i < n.list_len; ++i) y->dims[i] = n.list_a[i];
    y->dims[inferred] = total / known;
    return Error::Ok;
  }

  const Values& ub_;
  Values& v_;
  size_t d_;
};

}  // namespace

Error infer_shapes(const Values& bounds, const std::vector<Node>& nodes, Values* values,
                   size_t delegate_index) {
  Inference inf(bounds, values, delegate_index);
  for (const Node& n : nodes) {
    if (n.num_outputs > 1) {
      ETR_FAIL(Error::NotSupported,
               "XnnpackBackend: delegate %zu: node %u (%s): two outputs; shapes are static",
               delegate_index, n.index, to_string(n.kind));
    }
    ETR_RETURN_IF_ERROR(inf.node(n));
    ETR_RETURN_IF_ERROR(inf.within_bounds(n.outputs[0]));
  }
  return Error::Ok;
}

}  // namespace xnnpack
}  // namespace etr

// Output-shape hooks of the node kinds (node_kinds.h) and infer_shapes,
// which runs them in node order.
#include "backends/xnnpack/shapes.h"

#include "backends/xnnpack/node_hooks.h"
#include "runtime/platform/log.h"

namespace etr {
namespace xnnpack {

Error ShapeContext::fail(const Node& n, const char* what) const {
  ETR_FAIL(Error::NotSupported,
           "XnnpackBackend: delegate %zu: node %u (%s): cannot derive the output shape for the "
           "new input shape: %s",
           delegate, n.index, to_string(n.kind), what);
}

namespace {

constexpr uint32_t kSamePadding = 0x4;  // XNN_FLAG_TENSORFLOW_SAME_PADDING

void copy_dims(const Value& from, Value* to) {
  for (uint32_t i = 0; i < from.num_dims; ++i) to->dims[i] = from.dims[i];
}

bool window(const Node& n, size_t in, uint32_t pad, uint32_t kernel, uint32_t stride,
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

// Output height and width of a window over NHWC `x` (pads top, right,
// bottom, left); channels are set by the caller.
Error windowed(const ShapeContext& ctx, const Node& n, const uint32_t (&pad)[4], uint32_t kh,
               uint32_t kw, uint32_t sh, uint32_t sw, uint32_t dh, uint32_t dw) {
  const Value& x = ctx.values[n.inputs[0]];
  Value& y = ctx.values[n.outputs[0]];
  if (x.num_dims != 4 || y.num_dims != 4) return ctx.fail(n, "not 4-d NHWC");
  size_t oh = 0, ow = 0;
  if (!window(n, x.dims[1], pad[0] + pad[2], kh, sh, dh, &oh) ||
      !window(n, x.dims[2], pad[1] + pad[3], kw, sw, dw, &ow))
    return ctx.fail(n, "the window does not fit the input");
  y.dims[0] = x.dims[0];
  y.dims[1] = oh;
  y.dims[2] = ow;
  return Error::Ok;
}

Error pooling(const ShapeContext& ctx, const Node& n, bool dilated) {
  const PoolParams& p = n.pool();
  const uint32_t pad[4] = {p.padding_top, p.padding_right, p.padding_bottom, p.padding_left};
  ETR_RETURN_IF_ERROR(windowed(ctx, n, pad, p.pooling_height, p.pooling_width, p.stride_height,
                               p.stride_width, dilated ? p.dilation_height : 1,
                               dilated ? p.dilation_width : 1));
  ctx.values[n.outputs[0]].dims[3] = ctx.values[n.inputs[0]].dims[3];
  return Error::Ok;
}

}  // namespace

Error infer_broadcast(const ShapeContext& ctx, const Node& n) {
  const Value& a = ctx.values[n.inputs[0]];
  const Value& b = ctx.values[n.inputs[1]];
  Value* y = &ctx.values[n.outputs[0]];
  const uint32_t r = a.num_dims > b.num_dims ? a.num_dims : b.num_dims;
  if (y->num_dims != r) return ctx.fail(n, "output rank is not the broadcast rank");
  for (uint32_t i = 0; i < r; ++i) {
    const size_t da = i < a.num_dims ? a.dims[a.num_dims - 1 - i] : 1;
    const size_t db = i < b.num_dims ? b.dims[b.num_dims - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) return ctx.fail(n, "operand dims do not broadcast");
    y->dims[r - 1 - i] = da == 1 ? db : da;
  }
  return Error::Ok;
}

Error infer_same_shape(const ShapeContext& ctx, const Node& n) {
  const Value& x = ctx.values[n.inputs[0]];
  Value& y = ctx.values[n.outputs[0]];
  if (y.num_dims != x.num_dims) return ctx.fail(n, "input and output ranks differ");
  copy_dims(x, &y);
  return Error::Ok;
}

Error infer_fully_connected(const ShapeContext& ctx, const Node& n) {
  const Value& x = ctx.values[n.inputs[0]];
  const Value& w = ctx.values[n.inputs[1]];
  Value& y = ctx.values[n.outputs[0]];
  if (w.num_dims != 2 || x.num_dims == 0) return ctx.fail(n, "unexpected ranks");
  const size_t o = (n.flags & 0x1u) != 0 ? w.dims[1] : w.dims[0];
  const size_t k = x.dims[x.num_dims - 1];
  if (y.num_dims == x.num_dims) {
    copy_dims(x, &y);
  } else if (y.num_dims == 2) {
    y.dims[0] = k == 0 ? 0 : x.numel() / k;
  } else {
    return ctx.fail(n, "output rank is neither the input's nor 2");
  }
  y.dims[y.num_dims - 1] = o;
  return Error::Ok;
}

Error infer_conv(const ShapeContext& ctx, const Node& n) {
  const ConvParams& p = n.conv();
  const uint32_t pad[4] = {p.padding_top, p.padding_right, p.padding_bottom, p.padding_left};
  return windowed(ctx, n, pad, p.kernel_height, p.kernel_width, p.subsampling_height,
                  p.subsampling_width, p.dilation_height, p.dilation_width);
}

Error infer_avg_pool(const ShapeContext& ctx, const Node& n) { return pooling(ctx, n, false); }
Error infer_max_pool(const ShapeContext& ctx, const Node& n) { return pooling(ctx, n, true); }

Error infer_global_avg_pool(const ShapeContext& ctx, const Node& n) {
  const Value& x = ctx.values[n.inputs[0]];
  Value& y = ctx.values[n.outputs[0]];
  if (x.num_dims != 4 || y.num_dims != 4) return ctx.fail(n, "not 4-d NHWC");
  y.dims[0] = x.dims[0];
  y.dims[1] = y.dims[2] = 1;
  y.dims[3] = x.dims[3];
  return Error::Ok;
}

// new_shape: fixed dims, at most one 0 (inferred from the element count).
Error infer_reshape(const ShapeContext& ctx, const Node& n) {
  const ReshapeParams& p = n.reshape();
  const Value& x = ctx.values[n.inputs[0]];
  Value* y = &ctx.values[n.outputs[0]];
  if (p.rank != y->num_dims) return ctx.fail(n, "new_shape length differs from the rank");
  size_t known = 1;
  int inferred = -1;
  for (uint32_t i = 0; i < p.rank; ++i) {
    if (p.new_shape[i] == 0) {
      if (inferred >= 0) return ctx.fail(n, "more than one inferred dim");
      inferred = static_cast<int>(i);
    } else {
      known *= p.new_shape[i];
    }
  }
  const size_t total = x.numel();
  if (inferred < 0) {
    if (known != total) return ctx.fail(n, "new_shape does not hold the input's elements");
    for (uint32_t i = 0; i < p.rank; ++i) y->dims[i] = p.new_shape[i];
    return Error::Ok;
  }
  if (known == 0 || total % known != 0) return ctx.fail(n, "element count is not divisible");
  for (uint32_t i = 0; i < p.rank; ++i) y->dims[i] = p.new_shape[i];
  y->dims[inferred] = total / known;
  return Error::Ok;
}

Error infer_transpose(const ShapeContext& ctx, const Node& n) {
  const TransposeParams& p = n.transpose();
  const Value& x = ctx.values[n.inputs[0]];
  Value& y = ctx.values[n.outputs[0]];
  if (x.num_dims != p.rank || y.num_dims != p.rank) return ctx.fail(n, "rank");
  for (uint32_t i = 0; i < p.rank; ++i) {
    if (p.perm[i] >= x.num_dims) return ctx.fail(n, "perm is out of range");
    y.dims[i] = x.dims[p.perm[i]];
  }
  return Error::Ok;
}

Error infer_concat(const ShapeContext& ctx, const Node& n) {
  const uint32_t axis = n.concat().axis;
  const Value& x = ctx.values[n.inputs[0]];
  Value& y = ctx.values[n.outputs[0]];
  if (axis >= x.num_dims || y.num_dims != x.num_dims) return ctx.fail(n, "axis or rank");
  copy_dims(x, &y);
  size_t total = 0;
  for (uint32_t k = 0; k < n.num_inputs; ++k) {
    const Value& xk = ctx.values[n.inputs[k]];
    if (xk.num_dims != x.num_dims) return ctx.fail(n, "input ranks differ");
    total += xk.dims[axis];
  }
  y.dims[axis] = total;
  return Error::Ok;
}

Error infer_slice(const ShapeContext& ctx, const Node& n) {
  const SliceParams& p = n.slice();
  const Value& x = ctx.values[n.inputs[0]];
  const Value& xb = ctx.bounds[n.inputs[0]];
  Value& y = ctx.values[n.outputs[0]];
  if (x.num_dims != p.rank || y.num_dims != p.rank) return ctx.fail(n, "rank");
  for (uint32_t i = 0; i < p.rank; ++i) {
    const size_t off = p.offsets[i];
    if (off > x.dims[i]) return ctx.fail(n, "offset is past the input");
    // A size of 0, or one reaching the bound's end, follows the input.
    const bool to_end = p.sizes[i] == 0 || (off <= xb.dims[i] && p.sizes[i] == xb.dims[i] - off);
    y.dims[i] = to_end ? x.dims[i] - off : p.sizes[i];
    if (y.dims[i] > x.dims[i] - off) return ctx.fail(n, "slice is past the input");
  }
  return Error::Ok;
}

Error infer_batch_matmul(const ShapeContext& ctx, const Node& n) {
  const Value& x = ctx.values[n.inputs[0]];
  const Value& b = ctx.values[n.inputs[1]];
  Value& y = ctx.values[n.outputs[0]];
  const uint32_t r = x.num_dims;
  if (r < 2 || b.num_dims != r || y.num_dims != r) return ctx.fail(n, "ranks");
  copy_dims(x, &y);
  y.dims[r - 1] = b.dims[r - 1];
  return Error::Ok;
}

Error infer_pad(const ShapeContext& ctx, const Node& n) {
  const PadParams& p = n.pad();
  const Value& x = ctx.values[n.inputs[0]];
  Value& y = ctx.values[n.outputs[0]];
  if (y.num_dims != x.num_dims) return ctx.fail(n, "rank");
  for (uint32_t i = 0; i < x.num_dims; ++i) y.dims[i] = x.dims[i] + p.pre[i] + p.post[i];
  return Error::Ok;
}

Error infer_resize(const ShapeContext& ctx, const Node& n) {
  const ResizeParams& p = n.resize();
  const Value& x = ctx.values[n.inputs[0]];
  Value& y = ctx.values[n.outputs[0]];
  if (x.num_dims != 4 || y.num_dims != 4) return ctx.fail(n, "not 4-d NHWC");
  y.dims[0] = x.dims[0];
  y.dims[1] = p.new_height;
  y.dims[2] = p.new_width;
  y.dims[3] = x.dims[3];
  return Error::Ok;
}

Error infer_shapes(const Values& bounds, const std::vector<Node>& nodes, Values* values,
                   size_t delegate_index) {
  const ShapeContext ctx{bounds, *values, delegate_index};
  for (const Node& n : nodes) {
    if (n.num_outputs > 1) {
      ETR_FAIL(Error::NotSupported,
               "XnnpackBackend: delegate %zu: node %u (%s): two outputs; shapes are static",
               delegate_index, n.index, to_string(n.kind));
    }
    const NodeKindDesc* desc = find_node_kind(n.kind);
    if (desc == nullptr || desc->infer == nullptr)
      return ctx.fail(n, "this node kind has static shapes only");
    ETR_RETURN_IF_ERROR(desc->infer(ctx, n));
    // Every value must fit the buffer sized by its bound: each dim at most
    // the exported one (which also keeps the element counts from overflowing).
    const size_t id = n.outputs[0];
    for (uint32_t i = 0; i < (*values)[id].num_dims; ++i) {
      if ((*values)[id].dims[i] > bounds[id].dims[i]) {
        ETR_FAIL(Error::InvalidArgument,
                 "XnnpackBackend: delegate %zu: value %zu would have size %zu at dim %u, more "
                 "than the %zu it was exported with",
                 delegate_index, id, (*values)[id].dims[i], i, bounds[id].dims[i]);
      }
    }
  }
  return Error::Ok;
}

}  // namespace xnnpack
}  // namespace etr

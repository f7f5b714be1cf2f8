// Parse hooks of the node kinds (node_kinds.h): each reads its kind's
// flatbuffer table into a Node's value ids and typed parameters.
#include "backends/xnnpack/node_hooks.h"
#include "runtime/platform/log.h"
#include "schema/xnnpack_graph_generated.h"

namespace etr {
namespace xnnpack {

namespace fb = etr_xnn;

Error ParseContext::fail(const Node& n, const char* what) const {
  ETR_FAIL(Error::DelegateInvalidCompatibility, "XnnpackBackend: delegate %zu: node %u (%s): %s",
           delegate, n.index, to_string(n.kind), what);
}

namespace {

Error check_id(const ParseContext& ctx, const Node& n, const char* field, uint32_t id,
               bool optional) {
  if ((optional && id == kInvalidId) || id < ctx.values.size()) return Error::Ok;
  ETR_FAIL(Error::DelegateInvalidCompatibility,
           "XnnpackBackend: delegate %zu: node %u (%s): %s %u is not a value (%zu values)",
           ctx.delegate, n.index, to_string(n.kind), field, id, ctx.values.size());
}

// A list parameter (perm, shape, offsets, paddings) of at most kMaxDims entries.
Error copy_list(const ParseContext& ctx, const Node& n, const char* field,
                const flatbuffers::Vector<uint32_t>* v, size_t* out, uint32_t* len) {
  const size_t size = v == nullptr ? 0 : v->size();
  if (size > kMaxDims) {
    ETR_FAIL(Error::DelegateInvalidCompatibility,
             "XnnpackBackend: delegate %zu: node %u (%s): %s has %zu entries (at most %zu)",
             ctx.delegate, n.index, to_string(n.kind), field, size, kMaxDims);
  }
  for (size_t k = 0; k < size; ++k) out[k] = v->Get(static_cast<flatbuffers::uoffset_t>(k));
  *len = static_cast<uint32_t>(size);
  return Error::Ok;
}

Error missing(const ParseContext& ctx, const Node& n) {
  return ctx.fail(n, "parameters are missing");
}

Error parse_concat(const ParseContext& ctx, const void* table, Node* n, int count) {
  const auto* p = static_cast<const fb::_XNNCat*>(table);
  const uint32_t ids[] = {p->input1_id(), p->input2_id(), p->input3_id(), p->input4_id(),
                          p->input5_id()};
  static const char* const kFields[] = {"input1_id", "input2_id", "input3_id", "input4_id",
                                        "input5_id"};
  for (int k = 0; k < count; ++k) ETR_RETURN_IF_ERROR(ctx.input(n, kFields[k], ids[k]));
  n->set_concat().axis = p->axis();
  n->flags = p->flags();
  return ctx.output(n, "output_id", p->output_id());
}

}  // namespace

Error ParseContext::input(Node* n, const char* field, uint32_t id, bool optional) const {
  ETR_RETURN_IF_ERROR(check_id(*this, *n, field, id, optional));
  n->inputs[n->num_inputs++] = id;
  return Error::Ok;
}

Error ParseContext::output(Node* n, const char* field, uint32_t id) const {
  ETR_RETURN_IF_ERROR(check_id(*this, *n, field, id, false));
  n->outputs[n->num_outputs++] = id;
  return Error::Ok;
}

Error parse_2x1(const ParseContext& ctx, const void* table, Node* n) {
  const auto* p = static_cast<const fb::_XNNNode2x1*>(table);
  n->flags = p->flags();
  ETR_RETURN_IF_ERROR(ctx.input(n, "input1_id", p->input1_id()));
  ETR_RETURN_IF_ERROR(ctx.input(n, "input2_id", p->input2_id()));
  return ctx.output(n, "output_id", p->output_id());
}

Error parse_1x1(const ParseContext& ctx, const void* table, Node* n) {
  const auto* p = static_cast<const fb::_XNNNode1x1*>(table);
  n->flags = p->flags();
  ETR_RETURN_IF_ERROR(ctx.input(n, "input_id", p->input_id()));
  return ctx.output(n, "output_id", p->output_id());
}

namespace {

// The flags and operands of a node with weights (fully connected and the
// convolutions): input, filter, optional bias, output.
template <typename Table>
Error parse_weighted_io(const ParseContext& ctx, const Table* p, Node* n) {
  n->flags = p->flags();
  ETR_RETURN_IF_ERROR(ctx.input(n, "input1_id", p->input1_id()));
  ETR_RETURN_IF_ERROR(ctx.input(n, "filter_id", p->filter_id()));
  ETR_RETURN_IF_ERROR(ctx.input(n, "bias_id", p->bias_id(), true));
  return ctx.output(n, "output_id", p->output_id());
}

}  // namespace

Error parse_fully_connected(const ParseContext& ctx, const void* table, Node* n) {
  const auto* p = static_cast<const fb::XNNFullyConnected*>(table);
  return parse_weighted_io(ctx, p, n);
}

Error parse_conv(const ParseContext& ctx, const void* table, Node* n) {
  const auto* p = static_cast<const fb::_XNNNodeConv*>(table);
  ConvParams& c = n->set_conv();
  c.padding_top = p->padding_top();
  c.padding_right = p->padding_right();
  c.padding_bottom = p->padding_bottom();
  c.padding_left = p->padding_left();
  c.kernel_height = p->kernel_height();
  c.kernel_width = p->kernel_width();
  c.subsampling_height = p->subsampling_height();
  c.subsampling_width = p->subsampling_width();
  c.dilation_height = p->dilation_height();
  c.dilation_width = p->dilation_width();
  c.group_input_channels = p->group_input_channels();
  c.group_output_channels = p->group_output_channels();
  c.groups = p->groups();
  c.adjustment_height = p->adjustment_height();
  c.adjustment_width = p->adjustment_width();
  return parse_weighted_io(ctx, p, n);
}

Error parse_pool(const ParseContext& ctx, const void* table, Node* n) {
  const auto* p = static_cast<const fb::_XNNPooling2D*>(table);
  PoolParams& q = n->set_pool();
  q.padding_top = p->padding_top();
  q.padding_right = p->padding_right();
  q.padding_bottom = p->padding_bottom();
  q.padding_left = p->padding_left();
  q.pooling_height = p->pooling_height();
  q.pooling_width = p->pooling_width();
  q.stride_height = p->stride_height();
  q.stride_width = p->stride_width();
  q.dilation_height = p->dilation_height();
  q.dilation_width = p->dilation_width();
  n->flags = p->flags();
  ETR_RETURN_IF_ERROR(ctx.input(n, "input_id", p->input_id()));
  return ctx.output(n, "output_id", p->output_id());
}

Error parse_argmax_pool(const ParseContext& ctx, const void* table, Node* n) {
  const auto* p = static_cast<const fb::XNNArgMaxPooling2d*>(table);
  PoolParams& q = n->set_pool();
  q.padding_top = p->padding_top();
  q.padding_right = p->padding_right();
  q.padding_bottom = p->padding_bottom();
  q.padding_left = p->padding_left();
  q.pooling_height = p->pooling_height();
  q.pooling_width = p->pooling_width();
  q.stride_height = q.pooling_height;  // the window steps by its own size
  q.stride_width = q.pooling_width;
  n->flags = p->flags();
  ETR_RETURN_IF_ERROR(ctx.input(n, "input_id", p->input_id()));
  ETR_RETURN_IF_ERROR(ctx.output(n, "output_value_id", p->output_value_id()));
  return ctx.output(n, "output_index_id", p->output_index_id());
}

Error parse_transpose(const ParseContext& ctx, const void* table, Node* n) {
  const auto* p = static_cast<const fb::XNNStaticTranspose*>(table);
  n->flags = p->flags();
  TransposeParams& t = n->set_transpose();
  ETR_RETURN_IF_ERROR(copy_list(ctx, *n, "perm", p->perm(), t.perm, &t.rank));
  if (p->num_dims() != t.rank) return missing(ctx, *n);
  ETR_RETURN_IF_ERROR(ctx.input(n, "input_id", p->input_id()));
  return ctx.output(n, "output_id", p->output_id());
}

Error parse_resize(const ParseContext& ctx, const void* table, Node* n) {
  const auto* p = static_cast<const fb::XNNStaticResizeBilinear2D*>(table);
  ResizeParams& r = n->set_resize();
  r.new_height = p->new_height();
  r.new_width = p->new_width();
  n->flags = p->flags();
  ETR_RETURN_IF_ERROR(ctx.input(n, "input_id", p->input_id()));
  return ctx.output(n, "output_id", p->output_id());
}

Error parse_pad(const ParseContext& ctx, const void* table, Node* n) {
  const auto* p = static_cast<const fb::XNNStaticConstantPad*>(table);
  PadParams& pad = n->set_pad();
  uint32_t pre = 0, post = 0;
  ETR_RETURN_IF_ERROR(copy_list(ctx, *n, "pre_paddings", p->pre_paddings(), pad.pre, &pre));
  ETR_RETURN_IF_ERROR(copy_list(ctx, *n, "post_paddings", p->post_paddings(), pad.post, &post));
  pad.rank = pre;
  pad.value = p->padding_value();
  n->flags = p->flags();
  ETR_RETURN_IF_ERROR(ctx.input(n, "input_id", p->input_id()));
  ETR_RETURN_IF_ERROR(ctx.output(n, "output_id", p->output_id()));
  const uint32_t rank = ctx.values[n->inputs[0]].num_dims;
  if (pre != post || pre != rank) {
    ETR_FAIL(Error::DelegateInvalidCompatibility,
             "XnnpackBackend: delegate %zu: node %u (%s): %u pre and %u post paddings for a %u-d "
             "input",
             ctx.delegate, n->index, to_string(n->kind), pre, post, rank);
  }
  return Error::Ok;
}

Error parse_reshape(const ParseContext& ctx, const void* table, Node* n) {
  const auto* p = static_cast<const fb::XNNStaticReshape*>(table);
  ReshapeParams& r = n->set_reshape();
  ETR_RETURN_IF_ERROR(copy_list(ctx, *n, "new_shape", p->new_shape(), r.new_shape, &r.rank));
  n->flags = p->flags();
  ETR_RETURN_IF_ERROR(ctx.input(n, "input_id", p->input_id()));
  return ctx.output(n, "output_id", p->output_id());
}

Error parse_slice(const ParseContext& ctx, const void* table, Node* n) {
  const auto* p = static_cast<const fb::XNNStaticSlice*>(table);
  SliceParams& s = n->set_slice();
  uint32_t no = 0, ns = 0;
  ETR_RETURN_IF_ERROR(copy_list(ctx, *n, "offsets", p->offsets(), s.offsets, &no));
  ETR_RETURN_IF_ERROR(copy_list(ctx, *n, "sizes", p->sizes(), s.sizes, &ns));
  if (no != ns || p->num_dims() != no) return missing(ctx, *n);
  s.rank = no;
  n->flags = p->flags();
  ETR_RETURN_IF_ERROR(ctx.input(n, "input_id", p->input_id()));
  return ctx.output(n, "output_id", p->output_id());
}

Error parse_concat2(const ParseContext& ctx, const void* table, Node* n) {
  return parse_concat(ctx, table, n, 2);
}
Error parse_concat3(const ParseContext& ctx, const void* table, Node* n) {
  return parse_concat(ctx, table, n, 3);
}
Error parse_concat4(const ParseContext& ctx, const void* table, Node* n) {
  return parse_concat(ctx, table, n, 4);
}
Error parse_concat5(const ParseContext& ctx, const void* table, Node* n) {
  return parse_concat(ctx, table, n, 5);
}

Error parse_sdpa(const ParseContext& ctx, const void* table, Node* n) {
  const auto* p = static_cast<const fb::XNNScaledDotProductAttention*>(table);
  ETR_RETURN_IF_ERROR(ctx.input(n, "query_id", p->query_id()));
  ETR_RETURN_IF_ERROR(ctx.input(n, "key_id", p->key_id()));
  ETR_RETURN_IF_ERROR(ctx.input(n, "value_id", p->value_id()));
  ETR_RETURN_IF_ERROR(ctx.input(n, "scale_id", p->scale_id()));
  ETR_RETURN_IF_ERROR(ctx.input(n, "mask_id", p->mask_id()));
  n->flags = p->flags();
  return ctx.output(n, "output_id", p->output_id());
}

Error parse_leaky_relu(const ParseContext& ctx, const void* table, Node* n) {
  const auto* p = static_cast<const fb::XNNLeakyReLU*>(table);
  n->set_slope().negative_slope = p->negative_slope();
  n->flags = p->flags();
  ETR_RETURN_IF_ERROR(ctx.input(n, "input_id", p->input_id()));
  return ctx.output(n, "output_id", p->output_id());
}

Error parse_elu(const ParseContext& ctx, const void* table, Node* n) {
  const auto* p = static_cast<const fb::XNNELU*>(table);
  n->set_elu().alpha = p->alpha();
  n->flags = p->flags();
  ETR_RETURN_IF_ERROR(ctx.input(n, "input_id", p->input_id()));
  return ctx.output(n, "output_id", p->output_id());
}

}  // namespace xnnpack
}  // namespace etr

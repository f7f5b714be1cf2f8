// SiLU fusion over the parsed node list (fusion.h), on the chain-pattern
// matcher the method loader's kernel fusion also uses (runtime/core/chain_pattern.h).
#include "backends/xnnpack/fusion.h"

#include <cstdint>
#include <cstring>

#include "runtime/core/chain_pattern.h"

namespace etr {
namespace xnnpack {
namespace {

// The step a convolution prepared for one of our kernels stands for (the
// adapter below decides which nodes are one).
constexpr const char* kFusableConv = "fusable convolution";

// SiLU as the exporter writes it: x = conv(...); s = sigmoid(x); y = x * s,
// the multiply's operands in either order. A node's arguments are its
// inputs, then its outputs; a fusable convolution shows only its data
// input and its output (its filter and optional bias do not matter here).
constexpr ChainPattern kSiluPattern = {{{kFusableConv, 2}, {"Sigmoid", 2}, {"Multiply", 3, 0, 1}},
                                       {{ChainLinkKind::Same, {1, 0}, {0, -1}},
                                        {ChainLinkKind::Same, {2, 0}, {0, -1}},
                                        {ChainLinkKind::Same, {2, 1}, {1, -1}}}};
static_assert(chain_pattern_valid(kSiluPattern), "the SiLU pattern refers to a missing argument");

bool unclamped(const Node& n) {
  return n.output_min == -__builtin_inff() && n.output_max == __builtin_inff();
}

// The nodes of one candidate chain as the matcher sees them: chain position
// i is node at[i] (the sigmoid and multiply read the convolution's output
// but need not follow it directly in the node list). Only native, unclamped
// nodes take part; a convolution only when it was prepared for the GEMM or
// the depthwise kernel.
struct CandidateChain {
  const std::vector<Node>& nodes;
  const std::vector<bool>& native;
  const std::vector<NativeState>& states;
  size_t at[3];

  bool node_is(size_t i, const char* op, size_t num_args) const {
    if (i >= 3 || op == nullptr) return false;
    const Node& n = nodes[at[i]];
    if (!native[n.index] || !unclamped(n) || n.num_inputs == 0 || n.num_outputs == 0) return false;
    if (op == kFusableConv) {
      const NativeState& st = states[n.index];
      return num_args == 2 && (st.packed != nullptr || st.dwconv);
    }
    return n.num_inputs + n.num_outputs == num_args && std::strcmp(to_string(n.kind), op) == 0;
  }
  int32_t arg(size_t i, size_t a) const {
    const Node& n = nodes[at[i]];
    if (i == 0) return static_cast<int32_t>(a == 0 ? n.inputs[0] : n.outputs[0]);
    const uint32_t id = a < n.num_inputs ? n.inputs[a] : n.outputs[a - n.num_inputs];
    return static_cast<int32_t>(id);
  }
};

}  // namespace

size_t fuse_silu(const Values& g, const std::vector<Node>& nodes, const std::vector<bool>& native,
                 std::vector<NativeState>* states) {
  const size_t nv = g.size();
  // Per value: how many inputs of nodes read it, and the first two readers.
  std::vector<uint32_t> readers(nv, 0);
  std::vector<int64_t> first(nv, -1), second(nv, -1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    for (uint32_t k = 0; k < n.num_inputs; ++k) {
      const uint32_t v = n.inputs[k];
      if (v == kInvalidId || v >= nv) continue;
      if (readers[v] == 0) first[v] = static_cast<int64_t>(i);
      if (readers[v] == 1) second[v] = static_cast<int64_t>(i);
      ++readers[v];
    }
  }
  size_t fused = 0;
  for (const Node& p : nodes) {
    const uint32_t x = p.num_outputs == 0 ? kInvalidId : p.outputs[0];
    // The convolution's output: read by exactly the sigmoid and the multiply,
    // and no output of the delegate.
    if (x >= nv || g[x].flags != 0 || readers[x] != 2 || second[x] < 0) continue;
    const size_t r0 = static_cast<size_t>(first[x]), r1 = static_cast<size_t>(second[x]);
    CandidateChain chain{nodes, native, *states, {p.index, r0, r1}};
    ChainMatch m;
    if (!match_chain(kSiluPattern, chain, 0, &m)) {
      chain.at[1] = r1;
      chain.at[2] = r0;
      if (!match_chain(kSiluPattern, chain, 0, &m)) continue;
    }
    const Node& sig = nodes[chain.at[1]];
    const Node& mul = nodes[chain.at[2]];
    // The sigmoid's output: read by the multiply alone, no delegate output.
    const uint32_t s = sig.outputs[0];
    if (s >= nv || g[s].flags != 0 || readers[s] != 1) continue;
    if (multiply_layout(g, mul) != 2) continue;
    NativeState& ps = (*states)[p.index];
    ps.silu = true;
    ps.write_to = mul.outputs[0];
    (*states)[sig.index].skipped = true;
    (*states)[mul.index].skipped = true;
    ++fused;
  }
  return fused;
}

size_t fuse_quantize_transpose(const Values& g, const std::vector<Node>& nodes,
                               const std::vector<bool>& native, std::vector<NativeState>* states) {
  const size_t nv = g.size();
  std::vector<uint32_t> readers(nv, 0);
  std::vector<int64_t> reader(nv, -1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    for (uint32_t k = 0; k < n.num_inputs; ++k) {
      if (n.inputs[k] == kInvalidId || n.inputs[k] >= nv) continue;
      ++readers[n.inputs[k]];
      reader[n.inputs[k]] = static_cast<int64_t>(i);
    }
  }
  size_t fused = 0;
  for (const Node& c : nodes) {
    if (!native[c.index] || c.num_outputs != 1 || !is_static_quantize(g, c)) continue;
    NativeState& cs = (*states)[c.index];
    if (cs.write_to != kInvalidId || cs.skipped || cs.view) continue;
    const uint32_t x = c.outputs[0];
    if (x >= nv || g[x].flags != 0 || readers[x] != 1 || reader[x] < 0) continue;
    const Node& t = nodes[static_cast<size_t>(reader[x])];
    const NativeState& ts = (*states)[t.index];
    if (!native[t.index] || t.kind != NodeKind::StaticTranspose || ts.view || ts.skipped ||
        t.num_outputs != 1)
      continue;
    const Value& xv = g[x];
    const Value& yv = g[t.outputs[0]];
    const TransposeParams& tp = t.transpose();
    if (tp.rank != 4 || xv.num_dims != 4 || yv.num_dims != 4 || tp.perm[0] != 0 ||
        tp.perm[1] != 2 || tp.perm[2] != 3 || tp.perm[3] != 1)
      continue;
    if (xv.dims[1] == 0 || xv.dims[1] > 4 || yv.dtype != xv.dtype || yv.quant != xv.quant ||
        yv.scale != xv.scale || yv.zero_point != xv.zero_point || yv.dims[0] != xv.dims[0] ||
        yv.dims[1] != xv.dims[2] || yv.dims[2] != xv.dims[3] || yv.dims[3] != xv.dims[1])
      continue;
    cs.to_nhwc = true;
    cs.write_to = t.outputs[0];
    (*states)[t.index].skipped = true;
    ++fused;
  }
  return fused;
}

size_t fuse_qs8_clamps(const Values& g, const std::vector<Node>& nodes,
                       const std::vector<bool>& native, std::vector<NativeState>* states) {
  const size_t nv = g.size();
  // Per value: how many inputs of nodes read it, and the node that writes it.
  std::vector<uint32_t> readers(nv, 0);
  std::vector<int64_t> producer(nv, -1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    for (uint32_t k = 0; k < n.num_inputs; ++k) {
      if (n.inputs[k] != kInvalidId && n.inputs[k] < nv) ++readers[n.inputs[k]];
    }
    for (uint32_t k = 0; k < n.num_outputs; ++k) {
      if (n.outputs[k] < nv) producer[n.outputs[k]] = static_cast<int64_t>(i);
    }
  }
  size_t fused = 0;
  for (const Node& c : nodes) {
    int32_t lo = 0, hi = 0;
    if (!native[c.index] || (*states)[c.index].skipped || !qs8_clamp_codes(g, c, &lo, &hi))
      continue;
    // The clamp's input: read by the clamp alone, no output of the delegate.
    const uint32_t x = c.inputs[0];
    if (x >= nv || g[x].flags != 0 || readers[x] != 1 || producer[x] < 0) continue;
    const Node& p = nodes[static_cast<size_t>(producer[x])];
    if (!native[p.index] || p.num_outputs != 1) continue;
    NativeState& ps = (*states)[p.index];
    if (ps.write_to != kInvalidId || ps.skipped || ps.view || ps.silu) continue;
    if (!narrow_qs8_output(p, &ps, lo, hi)) continue;
    ps.write_to = c.outputs[0];
    (*states)[c.index].skipped = true;
    ++fused;
  }
  return fused;
}

}  // namespace xnnpack
}  // namespace etr

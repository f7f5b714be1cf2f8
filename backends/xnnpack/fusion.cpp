// SiLU fusion over the parsed node list (fusion.h).
#include "backends/xnnpack/fusion.h"

#include <cstdint>

namespace etr {
namespace xnnpack {

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
  auto unclamped = [](const Node& n) {
    return n.output_min == -__builtin_inff() && n.output_max == __builtin_inff();
  };
  size_t fused = 0;
  for (const Node& p : nodes) {
    NativeState& ps = (*states)[p.index];
    if (!native[p.index] || !(ps.packed != nullptr || ps.dwconv) || !unclamped(p)) continue;
    const uint32_t x = p.outputs[0];
    if (x >= nv || g[x].flags != 0 || readers[x] != 2 || second[x] < 0) continue;
    // x's two readers: the sigmoid and the multiply (in either order).
    const Node* sig = nullptr;
    const Node* mul = nullptr;
    for (const int64_t i : {first[x], second[x]}) {
      const Node& c = nodes[static_cast<size_t>(i)];
      if (c.kind == NodeKind::Sigmoid) sig = &c;
      if (c.kind == NodeKind::Multiply) mul = &c;
    }
    if (sig == nullptr || mul == nullptr || !native[sig->index] || !native[mul->index] ||
        !unclamped(*sig) || !unclamped(*mul))
      continue;
    const uint32_t s = sig->outputs[0];
    if (s >= nv || g[s].flags != 0 || readers[s] != 1 ||
        &nodes[static_cast<size_t>(first[s])] != mul)
      continue;
    if (!((mul->inputs[0] == x && mul->inputs[1] == s) ||
          (mul->inputs[0] == s && mul->inputs[1] == x)))
      continue;
    if (multiply_layout(g, *mul) != 2) continue;
    ps.silu = true;
    ps.write_to = mul->outputs[0];
    (*states)[sig->index].skipped = true;
    (*states)[mul->index].skipped = true;
    ++fused;
  }
  return fused;
}

}  // namespace xnnpack
}  // namespace etr

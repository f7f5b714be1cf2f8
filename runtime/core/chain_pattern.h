// Chain patterns: a fixed sequence of consecutive calls ("steps") tied
// together by which argument of one step is which argument of another, e.g.
//
//   step 0  conv(x, w, ..., out=a)      (11 arguments)
//   step 1  batch_norm(a, ...)          (11 arguments)   link: step 1 arg 0 == step 0 arg 9
//
// The matcher knows nothing of what the calls are. The caller describes its
// chain with a graph adapter (any type with these members):
//
//   // True when node `node` exists, is a call of `op` and has `num_args` arguments.
//   bool node_is(size_t node, const char* op, size_t num_args) const;
//   // Value id of argument `arg` of node `node` (arg < num_args of that node).
//   int32_t arg(size_t node, size_t arg) const;
//
// and, for patterns with SameBytes links only, optionally
//
//   // True when value vb, read by node nb, holds the bytes value va had
//   // after node na (na < nb): another view of the same memory that no node
//   // in between rewrote. Without this member a SameBytes link holds only
//   // between equal values.
//   bool same_bytes(size_t na, int32_t va, size_t nb, int32_t vb) const;
//
// and match_chain() says whether nodes first, first + 1, ... fit the pattern.
// A step may declare two arguments commutative (either order matches, e.g.
// mul(a, b) and mul(b, a)); a match records the order it found, and
// chain_arg() reads arguments through it. Matching allocates nothing and
// never recurses deeper than kMaxChainSteps.
//
// Used by the method loader's kernel fusion (runtime/kernel/fusion_rule.h)
// and open to delegates matching chains of their own nodes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace etr {

constexpr size_t kMaxChainSteps = 32;
constexpr size_t kMaxChainLinks = 40;

// No step: ends a list of references.
constexpr uint8_t kChainNoStep = 0xff;

// Argument `arg` of step `step`; a negative arg counts from the end of the
// step's arguments (-1: the last one, -2: the one before it).
struct ChainRef {
  uint8_t step = kChainNoStep;
  int8_t arg = 0;
};

// One call of the chain: its operator (compared by the graph adapter) and
// exact argument count. swap_a / swap_b (both >= 0) name two arguments that
// may come in either order; -1 when the step has none.
struct ChainStep {
  const char* op = nullptr;
  uint8_t num_args = 0;
  int8_t swap_a = -1;
  int8_t swap_b = -1;
};

enum class ChainLinkKind : uint8_t {
  None,       // unused slot (ends the list)
  Same,       // a and b are the same value
  Different,  // a and b are different values
  // b is a (the same value), or a view of a's bytes the exporter left
  // without a call of its own (a plan view: another shape over the same
  // memory), which the graph adapter confirms (same_bytes).
  SameBytes,
};

struct ChainLink {
  ChainLinkKind kind = ChainLinkKind::None;
  ChainRef a{};
  ChainRef b{};
};

// Steps and links, stored inline (a pattern is a constant aggregate): the
// steps end at the first with a null op, the links at the first of kind None.
struct ChainPattern {
  ChainStep steps[kMaxChainSteps];
  ChainLink links[kMaxChainLinks];

  constexpr size_t num_steps() const {
    size_t n = 0;
    while (n < kMaxChainSteps && steps[n].op != nullptr) ++n;
    return n;
  }
  constexpr size_t num_links() const {
    size_t n = 0;
    while (n < kMaxChainLinks && links[n].kind != ChainLinkKind::None) ++n;
    return n;
  }
};

// Where a pattern matched: its first node, and for each step whether its
// commutative arguments came swapped.
struct ChainMatch {
  size_t first = 0;
  size_t num_steps = 0;
  bool swapped[kMaxChainSteps] = {};
};

namespace internal {

// Whether Graph has same_bytes(na, va, nb, vb).
template <typename Graph, typename = void>
struct HasSameBytes {
  static constexpr bool value = false;
};
template <typename Graph>
struct HasSameBytes<Graph, decltype(void(std::declval<const Graph&>().same_bytes(
                               size_t{0}, int32_t{0}, size_t{0}, int32_t{0})))> {
  static constexpr bool value = true;
};

template <typename Graph>
bool link_holds(const Graph& g, ChainLinkKind kind, size_t na, int32_t va, size_t nb, int32_t vb) {
  switch (kind) {
    case ChainLinkKind::Same: return va == vb;
    case ChainLinkKind::Different: return va != vb;
    case ChainLinkKind::SameBytes:
      if (va == vb) return true;
      if constexpr (HasSameBytes<Graph>::value) {
        return na < nb ? g.same_bytes(na, va, nb, vb) : g.same_bytes(nb, vb, na, va);
      } else {
        return false;
      }
    case ChainLinkKind::None: break;
  }
  return false;
}

// The argument index `r` names under `m` (count-from-end and swaps applied).
inline size_t chain_arg_index(const ChainPattern& p, const ChainMatch& m, ChainRef r) {
  const ChainStep& s = p.steps[r.step];
  size_t a = r.arg >= 0 ? static_cast<size_t>(r.arg)
                        : s.num_args - static_cast<size_t>(-static_cast<int>(r.arg));
  if (m.swapped[r.step]) {
    if (a == static_cast<size_t>(s.swap_a)) {
      a = static_cast<size_t>(s.swap_b);
    } else if (a == static_cast<size_t>(s.swap_b)) {
      a = static_cast<size_t>(s.swap_a);
    }
  }
  return a;
}

// True when a reference is well formed for `p` (its step exists, its
// argument lies within that step's count).
constexpr bool chain_ref_valid(const ChainPattern& p, ChainRef r, size_t num_steps) {
  if (r.step >= num_steps) return false;
  const int n = p.steps[r.step].num_args;
  return r.arg >= 0 ? r.arg < n : -r.arg <= n;
}

template <typename Graph>
bool match_from(const ChainPattern& p, const Graph& g, size_t steps, size_t links, size_t i,
                ChainMatch* m) {
  if (i == steps) return true;
  const ChainStep& s = p.steps[i];
  if (!g.node_is(m->first + i, s.op, s.num_args)) return false;
  const int orders = s.swap_a >= 0 && s.swap_b >= 0 ? 2 : 1;
  for (int order = 0; order < orders; ++order) {
    m->swapped[i] = order == 1;
    bool ok = true;
    // The links whose later end is this step.
    for (size_t l = 0; l < links && ok; ++l) {
      const ChainLink& k = p.links[l];
      const size_t last = k.a.step > k.b.step ? k.a.step : k.b.step;
      if (last != i) continue;
      const size_t na = m->first + k.a.step;
      const size_t nb = m->first + k.b.step;
      ok = link_holds(g, k.kind, na, g.arg(na, chain_arg_index(p, *m, k.a)), nb,
                      g.arg(nb, chain_arg_index(p, *m, k.b)));
    }
    if (ok && match_from(p, g, steps, links, i + 1, m)) return true;
  }
  m->swapped[i] = false;
  return false;
}

}  // namespace internal

// True when every step and link of `p` refers to arguments that exist; a
// pattern must pass this before match_chain() (kernel registration checks it).
constexpr bool chain_pattern_valid(const ChainPattern& p) {
  const size_t steps = p.num_steps();
  if (steps == 0) return false;
  for (size_t i = 0; i < steps; ++i) {
    const ChainStep& s = p.steps[i];
    if ((s.swap_a >= 0) != (s.swap_b >= 0)) return false;
    if (s.swap_a >= 0 && (s.swap_a >= s.num_args || s.swap_b >= s.num_args)) return false;
  }
  for (size_t l = 0; l < p.num_links(); ++l) {
    if (!internal::chain_ref_valid(p, p.links[l].a, steps) ||
        !internal::chain_ref_valid(p, p.links[l].b, steps)) {
      return false;
    }
  }
  return true;
}

// True (with *m filled) when nodes first .. first + steps - 1 of `g` match
// `p` (which must be chain_pattern_valid). The first commutative order that
// fits wins, unswapped before swapped.
template <typename Graph>
bool match_chain(const ChainPattern& p, const Graph& g, size_t first, ChainMatch* m) {
  *m = ChainMatch{};
  m->first = first;
  m->num_steps = p.num_steps();
  return internal::match_from(p, g, m->num_steps, p.num_links(), 0, m);
}

// The value of argument `r` in a match.
template <typename Graph>
int32_t chain_arg(const ChainPattern& p, const Graph& g, const ChainMatch& m, ChainRef r) {
  return g.arg(m.first + r.step, internal::chain_arg_index(p, m, r));
}

}  // namespace etr

#include "backends/xnnpack/xnnpack_backend.h"

#include <xnnpack.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "backends/xnnpack/fusion.h"
#include "backends/xnnpack/narrow_float.h"
#include "backends/xnnpack/native_nodes.h"
#include "backends/xnnpack/node_hooks.h"
#include "backends/xnnpack/node_kinds.h"
#include "backends/xnnpack/shapes.h"
#include "backends/xnnpack/shared_packs.h"
#include "backends/xnnpack/weight_cache.h"
#include "backends/xnnpack/xnnpack_graph.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/thread_pool.h"
#include "runtime/platform/log.h"
#include "runtime/platform/platform.h"

namespace etr {
namespace {

using xnnpack::Dtype;
using xnnpack::Graph;
using xnnpack::kInvalidId;
using xnnpack::NarrowFloat;
using xnnpack::Node;
using xnnpack::NodeKind;
using xnnpack::Value;
using xnnpack::Values;

// A consecutive stretch of the node list: one XNNPACK runtime, or one node
// run by us.
struct Run {
  bool native = false;
  std::vector<uint32_t> nodes;
};

// The XNNPACK objects of one non-native run, for one set of shapes.
struct XnnRun {
  xnn_subgraph_t subgraph = nullptr;
  xnn_runtime_t runtime = nullptr;
  std::vector<xnn_external_value> externals;  // bound once: our buffers never move
};

// Runtimes built for one set of input shapes. XNNPACK 2022 has static
// shapes: another input shape (within the exported bounds) gets its own
// instance, with every value's dims re-derived (shapes.h).
struct Instance {
  bool used = false;
  Values values;                // the graph's values with this instance's dims
  std::vector<XnnRun> xruns;    // index-aligned with Delegate::runs
  void* pool_handle = nullptr;  // the pthreadpool the runtimes were created on
  uint64_t last_use = 0;

  void reset() {
    for (XnnRun& x : xruns) {
      if (x.runtime != nullptr) xnn_delete_runtime(x.runtime);
      if (x.subgraph != nullptr) xnn_delete_subgraph(x.subgraph);
    }
    xruns.clear();
    values.clear();
    used = false;
    pool_handle = nullptr;
  }
};

// An external value that native nodes alone read (an input) or write (an
// output), with the views sharing its buffer: execute points them at the
// argument tensor's memory instead of copying through our buffer, when the
// tensor fits (dtype, size, alignment, no overlap with another argument).
struct DirectGroup {
  uint32_t id = 0;  // the external value
  bool input = false;
  std::vector<uint32_t> members;  // values whose buffer is this one (id included)
};

// Input shapes whose runtimes are kept; the least recently used goes first.
constexpr size_t kMaxShapes = 4;

// Forwards to the allocator the runtime gave the delegate and adds up what
// it handed out (padding excluded), for the init log: an allocator's own
// used() is not virtual, and a growing arena (PlatformArena) has none.
class CountingAllocator final : public MemoryAllocator {
 public:
  CountingAllocator() : MemoryAllocator(nullptr, 0) {}
  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    void* p = inner == nullptr ? nullptr : inner->allocate(size, alignment);
    if (p != nullptr) bytes += size;
    return p;
  }
  MemoryAllocator* inner = nullptr;
  size_t bytes = 0;
};

// Memory that the delegates initialized with one method allocator share
// (the delegates of one method: they run one after another). A delegate's
// value buffers and native scratch hold nothing between execute calls:
// inputs are copied in, outputs copied out, and every other value is written
// before it is read. So the buffers of different delegates may overlap, and
// each delegate places its values into the blocks its predecessors already
// took from the method allocator, taking a new block only for a value no
// free block holds. An LLM's 49 delegates then need the blocks of about one
// layer instead of one set each. Blocks never move or shrink, so pointers a
// delegate bound at init stay valid. `run` is held for each execute (and
// while a delegate places its values): delegates that share blocks never
// run at the same time, even when two methods were given one allocator.
struct Workspace {
  struct Block {
    uint8_t* data;
    size_t bytes;  // usable bytes (XNN_EXTRA_BYTES of read-ahead follow)
  };
  MemoryAllocator* key = nullptr;  // the method allocator the blocks come from
  size_t users = 0;                // delegates holding this workspace
  std::mutex run;
  std::vector<Block> blocks;
  // Weights the native nodes of these delegates packed from named data,
  // for the later ones to reuse (the packs belong to the same allocator).
  xnnpack::SharedPacks packs;
  Workspace* next = nullptr;
};

// Workspaces in use, by method allocator; guarded by g_workspaces_mutex.
std::mutex g_workspaces_mutex;
Workspace* g_workspaces = nullptr;

// The workspace of `key` (made when none exists), with one more user; null
// for a null key or when the heap is exhausted.
Workspace* acquire_workspace(MemoryAllocator* key) {
  if (key == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(g_workspaces_mutex);
  Workspace* w = g_workspaces;
  while (w != nullptr && w->key != key) w = w->next;
  if (w == nullptr) {
    w = new (std::nothrow) Workspace();
    if (w == nullptr) return nullptr;
    w->key = key;
    w->next = g_workspaces;
    g_workspaces = w;
  }
  ++w->users;
  return w;
}

// Drops one user of `w`; the last one deletes it (its blocks belong to the
// method allocator, which outlives the delegates).
void release_workspace(Workspace* w) {
  if (w == nullptr) return;
  std::lock_guard<std::mutex> lock(g_workspaces_mutex);
  if (--w->users != 0) return;
  Workspace** link = &g_workspaces;
  while (*link != w) link = &(*link)->next;
  *link = w->next;
  delete w;
}

struct Delegate {
  size_t index = 0;
  Graph graph;
  FreeableBuffer payload;
  // Memory of value id i (sized for the payload's dims, the upper bounds):
  // our buffer, the constant's data, or null (the value lives inside one
  // XNNPACK runtime).
  std::vector<uint8_t*> buffers;
  // The method allocator (BackendInitContext::method_allocator) as seen
  // through a byte count: value buffers, packed weights, copied biases and
  // scratch come from it.
  CountingAllocator counted;
  MemoryAllocator* allocator = nullptr;  // &counted, or null without a method allocator
  // Where the value buffers and scratch live: blocks shared with the other
  // delegates of the method allocator (null without one).
  Workspace* workspace = nullptr;
  std::vector<Run> runs;
  std::vector<xnnpack::NativeState> native_state;  // by node index
  std::vector<uint32_t> inputs;                    // value ids of external inputs
  std::vector<uint32_t> outputs;                   // value ids of external outputs
  std::vector<size_t> input_dims;                  // execute's scratch: kMaxDims per input
  void* scratch = nullptr;                         // native nodes' scratch (bmm packing)
  std::vector<uint8_t*> staging;                   // buffers as placed at init
  std::vector<DirectGroup> direct;
  std::vector<uint8_t> direct_used;  // execute's scratch: by value id
  size_t scratch_bytes = 0;
  // Load option "native_fp32": fp32 convolutions (depthwise too), fully-
  // connected layers, sigmoid and multiply on our kernels
  // (is_float_compute_node) rather than XNNPACK.
  bool native_fp32 = true;
  // Bytes of named data released after init (release_copied_constants).
  size_t released_bytes = 0;
  // The packed-weight cache (load option "weight_cache_dir" or
  // ETR_WEIGHT_CACHE_DIR; weight_cache.h): kept while its blobs are in use
  // (a hit), dropped after init otherwise. Null when off.
  std::unique_ptr<xnnpack::WeightCache> cache;
  // The pool packing splits across during init (BackendInitContext's).
  ThreadPool* init_pool = nullptr;
  // The named data the payload's keys are read from (BackendInitContext's;
  // during init only).
  const NamedDataMap* named_data = nullptr;
  // By run: the bf16 and fp16 values (held as fp32, narrow_float.h) the run
  // writes into buffers of ours, rounded to their format in place after it.
  std::vector<std::vector<uint32_t>> narrow_rounded;
  Instance shapes[kMaxShapes];
  uint64_t clock = 0;

  ~Delegate() {
    for (Instance& i : shapes) i.reset();
    payload.release();
    if (workspace != nullptr) workspace->packs.forget(this);
    release_workspace(workspace);
  }
};

std::atomic<size_t> g_shape_builds{0};

bool xnnpack_initialized() {
  static const bool ok = xnn_initialize(nullptr) == xnn_status_success;
  return ok;
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

// The dtype and bytes of value `v`'s tensor argument: a bf16 or fp16 value
// held as fp32 (narrow_float.h) takes a bf16 or fp16 tensor.
ScalarType arg_dtype(const Value& v) {
  switch (v.narrowed) {
    case NarrowFloat::BF16: return ScalarType::BFloat16;
    case NarrowFloat::Fp16: return ScalarType::Half;
    default: return scalar_type_of(v.dtype);
  }
}
size_t arg_nbytes(const Value& v) {
  return v.narrowed != NarrowFloat::None ? v.numel() * 2 : v.nbytes();
}

// The runs over which a buffer is in use (inclusive).
constexpr size_t kNoRun = SIZE_MAX;
struct Lifetime {
  size_t first = kNoRun;
  size_t last = kNoRun;
};
// The lifetime of a buffer in use from the start of a call to its end.
constexpr Lifetime kWholeCall{0, kNoRun - 1};

// A buffer Builder::place_in_workspace places: value `id`'s (kScratchItem:
// the native scratch), of `bytes`, in use over the runs `life`.
constexpr uint32_t kScratchItem = UINT32_MAX;
struct Item {
  uint32_t id;
  size_t bytes;
  Lifetime life;
};

class Builder {
 public:
  Builder(Delegate* d, Instance* inst) : d_(d), g_(d->graph), inst_(inst) {}

  // At init: splits the nodes, places the value buffers and builds the
  // first instance for the payload's own shapes.
  Error build(void* pool_handle) {
    ETR_RETURN_IF_ERROR(split_runs());
    ETR_RETURN_IF_ERROR(place_values());
    inst_->values = g_.values;
    ETR_RETURN_IF_ERROR(build_instance(pool_handle));
    release_copied_constants();
    return Error::Ok;
  }

  // Named-data buffers whose every constant is read only by native nodes
  // that keep their own copy (packed weights, copied biases) are released,
  // so the weights are not held twice (the loader frees or unmaps them).
  // A convolution whose scratch would not fit kMaxScratchBytes keeps its
  // filter: its fallback path reads it.
  void release_copied_constants() {
    const size_t nv = g_.values.size();
    std::vector<uint8_t> use(nv, 0);  // 0: unread, 1: read only as a copied input, 2: read
    for (const Node& n : g_.nodes) {
      const xnnpack::NativeState& st = d_->native_state[n.index];
      for (uint32_t k = 0; k < n.num_inputs; ++k) {
        const uint32_t v = n.inputs[k];
        if (v == kInvalidId || v >= nv) continue;
        if (!scratch_fits_[n.index] || !xnnpack::copies_constant_input(st, k)) {
          use[v] = 2;
        } else if (use[v] == 0) {
          use[v] = 1;
        }
      }
    }
    std::vector<FreeableBuffer>& named = d_->graph.named_buffers;
    std::vector<uint8_t> keep(named.size(), 0);  // 0: unclaimed, 1: releasable, 2: keep
    for (size_t v = 0; v < nv; ++v) {
      const int32_t b = g_.values[v].named_buffer;
      if (b < 0 || static_cast<size_t>(b) >= named.size()) continue;
      keep[static_cast<size_t>(b)] = use[v] == 1 && keep[static_cast<size_t>(b)] != 2 ? 1 : 2;
    }
    for (size_t b = 0; b < named.size(); ++b) {
      if (keep[b] != 1 || named[b].data() == nullptr) continue;
      d_->released_bytes += named[b].size();
      named[b].release();
    }
    // Widened bf16 and fp16 constants (narrow_float.h) go the same way: the
    // packed fp32 copies replace them.
    size_t widened_kept = 0, widened_freed = 0;
    bool bf16 = false, fp16 = false;
    for (size_t v = 0; v < nv; ++v) {
      const int32_t w = g_.values[v].widened_index;
      if (w < 0 || static_cast<size_t>(w) >= d_->graph.widened.size()) continue;
      std::vector<float>& copy = d_->graph.widened[static_cast<size_t>(w)];
      bf16 = bf16 || g_.values[v].narrowed == NarrowFloat::BF16;
      fp16 = fp16 || g_.values[v].narrowed == NarrowFloat::Fp16;
      if (use[v] == 1) {
        widened_freed += copy.size() * sizeof(float);
        std::vector<float>().swap(copy);
      } else {
        widened_kept += copy.size() * sizeof(float);
      }
    }
    if (!d_->graph.widened.empty()) {
      ETR_LOG(Info,
              "XnnpackBackend: delegate %zu: widened %s constants: %zu bytes freed (packed "
              "copies replace them), %zu bytes kept (read as they are)",
              d_->index, bf16 && fp16 ? "bf16 and fp16" : (fp16 ? "fp16" : "bf16"), widened_freed,
              widened_kept);
    }
    if (d_->released_bytes != 0) {
      ETR_LOG(Info, "XnnpackBackend: delegate %zu: released %zu bytes of named data held as copies",
              d_->index, d_->released_bytes);
    }
  }

  // Builds *inst_ (its values already hold the dims) on `pool_handle`:
  // checks every node against these shapes, defines the subgraphs and
  // creates the runtimes. On failure the instance is left unused.
  Error build_instance(void* pool_handle) {
    Error e = define_all();
    if (e == Error::Ok) e = create_runtimes(d_, inst_, pool_handle);
    if (e != Error::Ok) {
      inst_->reset();
      return e;
    }
    inst_->used = true;
    g_shape_builds.fetch_add(1, std::memory_order_relaxed);
    return Error::Ok;
  }

  // (Re)creates every XNNPACK runtime of `inst` on `pool_handle`.
  static Error create_runtimes(Delegate* d, Instance* inst, void* pool_handle) {
    for (size_t i = 0; i < d->runs.size(); ++i) {
      const Run& r = d->runs[i];
      XnnRun& x = inst->xruns[i];
      if (r.native) continue;
      if (x.runtime != nullptr) {
        xnn_delete_runtime(x.runtime);
        x.runtime = nullptr;
      }
      // XNN_FLAG_YIELD_WORKERS: the pool's workers sleep when the run ends
      // instead of spinning, so they leave the cores to the kernels and
      // native nodes that run between delegate calls.
      xnn_status s = xnn_create_runtime_v2(x.subgraph, static_cast<pthreadpool_t>(pool_handle),
                                           XNN_FLAG_YIELD_WORKERS, &x.runtime);
      if (s == xnn_status_success)
        s = xnn_setup_runtime(x.runtime, x.externals.size(), x.externals.data());
      if (s != xnn_status_success) {
        ETR_FAIL(Error::DelegateInvalidCompatibility,
                 "XnnpackBackend: delegate %zu: XNNPACK could not create the runtime for nodes "
                 "%u..%u: %s",
                 d->index, r.nodes.front(), r.nodes.back(), xnnpack::xnn_status_text(s));
      }
    }
    inst->pool_handle = pool_handle;
    return Error::Ok;
  }

 private:
  const Values& vals() const { return inst_->values; }

  Error define_all() {
    inst_->xruns.assign(d_->runs.size(), XnnRun{});
    for (size_t i = 0; i < d_->runs.size(); ++i) {
      const Run& r = d_->runs[i];
      for (uint32_t ni : r.nodes) {
        const Node& n = g_.nodes[ni];
        ETR_RETURN_IF_ERROR(r.native ? xnnpack::check_native_node(vals(), n, d_->index)
                                     : xnnpack::check_xnnpack_node(vals(), n, d_->index));
        if (d_->native_state[ni].view && !xnnpack::is_view_node(vals(), n)) {
          ETR_FAIL(Error::DelegateInvalidCompatibility,
                   "XnnpackBackend: delegate %zu: node %u (%s) is no view of its input at these "
                   "shapes",
                   d_->index, n.index, xnnpack::to_string(n.kind));
        }
      }
      if (!r.native) ETR_RETURN_IF_ERROR(define_subgraph(r, inst_->xruns[i]));
    }
    return Error::Ok;
  }

  // The position in g_.nodes of the last node that reads each named-data
  // buffer (SIZE_MAX: none), and by buffer whether every read so far is of
  // a copy a native node keeps (release_packed_sources).
  void find_last_readers() {
    const size_t nb = d_->graph.named_buffers.size();
    last_reader_.assign(nb, SIZE_MAX);
    copied_only_.assign(nb, true);
    for (size_t pos = 0; pos < g_.nodes.size(); ++pos) {
      const Node& n = g_.nodes[pos];
      for (uint32_t k = 0; k < n.num_inputs; ++k) {
        const int32_t b = named_buffer_of(n.inputs[k]);
        if (b >= 0) last_reader_[static_cast<size_t>(b)] = pos;
      }
    }
  }

  int32_t named_buffer_of(uint32_t v) const {
    if (v == kInvalidId || v >= g_.values.size()) return -1;
    const int32_t b = g_.values[v].named_buffer;
    return b >= 0 && static_cast<size_t>(b) < last_reader_.size() ? b : -1;
  }

  // After node `pos` (n) is prepared: notes how it reads its named data and
  // releases each buffer it was the last reader of when every reader keeps
  // its own copy (packed weights, copied biases), so that init holds one
  // layer's source at a time rather than all of them (the loader frees or
  // unmaps it). release_copied_constants applies the same rule at the end.
  void release_packed_sources(size_t pos, const Node& n, bool native) {
    const xnnpack::NativeState& st = d_->native_state[n.index];
    for (uint32_t k = 0; k < n.num_inputs; ++k) {
      const int32_t b = named_buffer_of(n.inputs[k]);
      if (b < 0) continue;
      const size_t bi = static_cast<size_t>(b);
      if (!native || !scratch_fits_[n.index] || !xnnpack::copies_constant_input(st, k))
        copied_only_[bi] = false;
    }
    for (uint32_t k = 0; k < n.num_inputs; ++k) {
      const int32_t b = named_buffer_of(n.inputs[k]);
      if (b < 0) continue;
      const size_t bi = static_cast<size_t>(b);
      FreeableBuffer& buf = d_->graph.named_buffers[bi];
      if (last_reader_[bi] != pos || !copied_only_[bi] || buf.data() == nullptr) continue;
      d_->released_bytes += buf.size();
      buf.release();
    }
  }

  Error split_runs() {
    d_->native_state.resize(g_.nodes.size());
    natives_.assign(g_.nodes.size(), false);
    scratch_fits_.assign(g_.nodes.size(), false);
    find_last_readers();
    xnnpack::SharedPacks* shared = d_->workspace == nullptr ? nullptr : &d_->workspace->packs;
    xnnpack::KeyHomes homes(d_->named_data);
    const xnnpack::PackScope scope{shared, &homes, d_};
    const size_t hits_before = shared == nullptr ? 0 : shared->hits();
    bool cut = false;
    // The node writing each value (-1: none), for the clamps below.
    std::vector<int64_t> writer(g_.values.size(), -1);
    for (size_t pos = 0; pos < g_.nodes.size(); ++pos) {
      const Node& n = g_.nodes[pos];
      bool native = xnnpack::is_native_node(g_.values, n, d_->native_fp32);
      // An int8 clamp runs natively (and may fold into its producer,
      // fuse_qs8_clamps) only after a native node: after an XNNPACK node it
      // stays in that node's run.
      if (native && n.kind == xnnpack::NodeKind::Clamp && n.num_inputs > 0 &&
          n.inputs[0] < writer.size() && writer[n.inputs[0]] >= 0 &&
          !natives_[g_.nodes[static_cast<size_t>(writer[n.inputs[0]])].index])
        native = false;
      for (uint32_t k = 0; k < n.num_outputs; ++k) {
        if (n.outputs[k] < writer.size()) writer[n.outputs[k]] = static_cast<int64_t>(pos);
      }
      const xnnpack::NodeKindDesc* desc = xnnpack::find_node_kind(n.kind);
      if (!native && (desc == nullptr || desc->define == nullptr)) {
        ETR_FAIL(Error::NotSupported,
                 "XnnpackBackend: delegate %zu: node %u (%s): neither XNNPACK nor the delegate's "
                 "own code runs this node kind here",
                 d_->index, n.index, xnnpack::to_string(n.kind));
      }
      natives_[n.index] = native;
      if (native) {
        ETR_RETURN_IF_ERROR(xnnpack::check_native_node(g_.values, n, d_->index));
        ETR_RETURN_IF_ERROR(xnnpack::prepare_native_node(g_.values, n, d_->index, d_->allocator,
                                                         &d_->native_state[n.index], d_->init_pool,
                                                         d_->cache.get(), &scope));
        const size_t scratch = xnnpack::native_scratch_bytes(g_.values, n);
        if (scratch > d_->scratch_bytes) d_->scratch_bytes = scratch;
        scratch_fits_[n.index] = scratch <= kMaxScratchBytes;
      }
      release_packed_sources(pos, n, native);
      if (native || d_->runs.empty() || d_->runs.back().native || cut) d_->runs.emplace_back();
      d_->runs.back().native = native;
      d_->runs.back().nodes.push_back(n.index);
      // A bf16 or fp16 result ends its XNNPACK run: it then has a buffer of
      // ours and is rounded to its format before the next node reads it
      // (narrow_float.h).
      cut = false;
      for (uint32_t k = 0; k < n.num_outputs; ++k)
        cut = cut || g_.values[n.outputs[k]].narrowed != NarrowFloat::None;
    }
    const size_t reused = shared == nullptr ? 0 : shared->hits() - hits_before;
    if (reused != 0) {
      ETR_LOG(Info,
              "XnnpackBackend: delegate %zu: %zu packed weights reused from earlier delegates of "
              "the method (same named data)",
              d_->index, reused);
    }
    const size_t silu = xnnpack::fuse_silu(g_.values, g_.nodes, natives_, &d_->native_state);
    if (silu != 0) {
      ETR_LOG(Info, "XnnpackBackend: delegate %zu: %zu SiLU chains fused into their convolutions",
              d_->index, silu);
    }
    const size_t quantized =
        xnnpack::fuse_quantize_transpose(g_.values, g_.nodes, natives_, &d_->native_state);
    if (quantized != 0) {
      ETR_LOG(Info,
              "XnnpackBackend: delegate %zu: %zu quantizing converts fused with their NHWC "
              "transposes",
              d_->index, quantized);
    }
    const size_t clamps =
        xnnpack::fuse_qs8_clamps(g_.values, g_.nodes, natives_, &d_->native_state);
    if (clamps != 0) {
      ETR_LOG(Info, "XnnpackBackend: delegate %zu: %zu int8 clamps folded into their layers",
              d_->index, clamps);
    }
    return Error::Ok;
  }

  // `bytes` (plus XNNPACK's read-ahead) from the method allocator, zeroed;
  // null when there is none or it is exhausted.
  uint8_t* allocate(size_t bytes) {
    void* p =
        d_->allocator == nullptr ? nullptr : d_->allocator->allocate(bytes + XNN_EXTRA_BYTES, 64);
    if (p != nullptr) std::memset(p, 0, bytes + XNN_EXTRA_BYTES);
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
    // A view's output takes its input's buffer (set below, in node order).
    std::vector<bool> aliased(nv, false);
    for (const Node& n : g_.nodes) {
      if (d_->native_state[n.index].view) aliased[n.outputs[0]] = true;
    }
    const std::vector<bool> shared = shareable_values(producer, needs, aliased);
    std::vector<Item> planned;  // buffers placed in the workspace below
    d_->buffers.assign(nv, nullptr);
    for (size_t id = 0; id < nv; ++id) {
      const Value& v = g_.values[id];
      if (v.data != nullptr) {
        d_->buffers[id] = const_cast<uint8_t*>(v.data);  // XNNPACK and native nodes only read it
        continue;
      }
      // XNNPACK sizes its own internal tensors from the dims too: the cap
      // covers every non-constant value, ours or XNNPACK's.
      const size_t bytes = xnnpack::value_buffer_bytes(v);
      total_bytes_ += bytes;
      if (bytes > kMaxBufferBytes || total_bytes_ > kMaxBufferBytes) {
        ETR_FAIL(Error::DelegateMemoryAllocationFailed,
                 "XnnpackBackend: delegate %zu: value %zu needs %zu bytes; the delegate's "
                 "values would pass the %zu-byte limit",
                 d_->index, id, bytes, kMaxBufferBytes);
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
      if ((!needs[id] && v.flags == 0) || aliased[id]) continue;
      if (xnnpack::element_size(v.dtype) == 0) {
        ETR_FAIL(Error::NotSupported,
                 "XnnpackBackend: delegate %zu: value %zu of datatype %s cannot be held between "
                 "runs",
                 d_->index, id, xnnpack::to_string(v.dtype));
      }
      // A value that is not shareable (an input, an output, or seen
      // through a view from outside) lives for the whole call.
      planned.push_back(
          Item{static_cast<uint32_t>(id), bytes, shared[id] ? live_[id] : kWholeCall});
    }
    if (d_->scratch_bytes > 0) {
      // gemm() works with less (fewer threads, smaller blocks).
      if (d_->scratch_bytes > kMaxScratchBytes) d_->scratch_bytes = kMaxScratchBytes;
      planned.push_back(Item{kScratchItem, d_->scratch_bytes, kWholeCall});
    }
    ETR_RETURN_IF_ERROR(place_in_workspace(planned));
    for (const Node& n : g_.nodes) {
      if (!d_->native_state[n.index].view) continue;
      d_->buffers[n.outputs[0]] = d_->buffers[n.inputs[0]];
      if (d_->buffers[n.outputs[0]] == nullptr) {
        ETR_FAIL(Error::DelegateInvalidCompatibility,
                 "XnnpackBackend: delegate %zu: node %u (%s): input value %u has no buffer to "
                 "share",
                 d_->index, n.index, xnnpack::to_string(n.kind), n.inputs[0]);
      }
    }
    find_direct_groups(producer);
    find_narrow_rounded();
    return Error::Ok;
  }

  // Values that live between runs inside the delegate (not inputs, outputs
  // or constants, and not views of another value) can share memory with
  // values whose lifetimes do not overlap. Their lifetime, in runs, is from
  // the run that writes them to the last run that reads them or a view of
  // them; fills live_ for place_in_workspace.
  std::vector<bool> shareable_values(const std::vector<int>& producer,
                                     const std::vector<bool>& needs,
                                     const std::vector<bool>& aliased) {
    const size_t nv = g_.values.size();
    std::vector<uint32_t> root(nv);
    for (size_t id = 0; id < nv; ++id) root[id] = static_cast<uint32_t>(id);
    for (const Node& n : g_.nodes) {
      if (d_->native_state[n.index].view) root[n.outputs[0]] = root[n.inputs[0]];
    }
    std::vector<bool> shared(nv, false);
    for (size_t id = 0; id < nv; ++id) {
      const Value& v = g_.values[id];
      shared[id] =
          v.data == nullptr && v.flags == 0 && needs[id] && !aliased[id] && producer[id] != -1;
    }
    // A root seen through a view from outside the delegate keeps its own buffer.
    for (size_t id = 0; id < nv; ++id) {
      if (g_.values[id].flags != 0 && root[id] != id) shared[root[id]] = false;
    }
    live_.assign(nv, Lifetime{});
    for (size_t r = 0; r < d_->runs.size(); ++r) {
      for (uint32_t ni : d_->runs[r].nodes) {
        const Node& n = g_.nodes[ni];
        for (uint32_t k = 0; k < n.num_inputs; ++k) {
          if (n.inputs[k] != kInvalidId) touch(root[n.inputs[k]], r);
        }
        for (uint32_t k = 0; k < n.num_outputs; ++k) touch(root[n.outputs[k]], r);
        // A convolution with a fused SiLU writes the multiply's output.
        const uint32_t w = d_->native_state[n.index].write_to;
        if (w != kInvalidId) touch(root[w], r);
      }
    }
    return shared;
  }

  void touch(uint32_t id, size_t run) {
    Lifetime& l = live_[id];
    if (run < l.first) l.first = run;
    if (run > l.last || l.last == kNoRun) l.last = run;
  }

  // Greedy placement, largest buffer first, into the workspace's blocks:
  // the smallest block that holds the buffer and that none of this
  // delegate's buffers live in at the same time (blocks other delegates
  // placed values in are free: those delegates do not run during this
  // one's call), else a new block from the method allocator.
  Error place_in_workspace(std::vector<Item>& items) {
    std::stable_sort(items.begin(), items.end(),
                     [](const Item& a, const Item& b) { return a.bytes > b.bytes; });
    Workspace* w = d_->workspace;
    std::vector<Workspace::Block> own;  // without a workspace (no allocator: nothing is given)
    std::unique_lock<std::mutex> lock;
    if (w != nullptr) lock = std::unique_lock<std::mutex>(w->run);
    std::vector<Workspace::Block>& blocks = w != nullptr ? w->blocks : own;
    std::vector<std::vector<Lifetime>> users(blocks.size());  // this delegate's, by block
    for (const Item& it : items) {
      size_t home = SIZE_MAX;
      for (size_t b = 0; b < blocks.size(); ++b) {
        if (blocks[b].bytes < it.bytes) continue;
        if (home != SIZE_MAX && blocks[home].bytes <= blocks[b].bytes) continue;
        bool free = true;
        for (const Lifetime& u : users[b])
          free = free && (it.life.last < u.first || u.last < it.life.first);
        if (free) home = b;
      }
      if (home == SIZE_MAX) {
        uint8_t* p = allocate(it.bytes);
        if (p == nullptr) {
          if (it.id == kScratchItem) {
            ETR_FAIL(Error::DelegateMemoryAllocationFailed,
                     "XnnpackBackend: delegate %zu: the method allocator cannot give %zu bytes of "
                     "native scratch",
                     d_->index, it.bytes);
          }
          ETR_FAIL(Error::DelegateMemoryAllocationFailed,
                   "XnnpackBackend: delegate %zu: the method allocator cannot give %zu bytes for "
                   "value %u",
                   d_->index, it.bytes, it.id);
        }
        blocks.push_back(Workspace::Block{p, it.bytes});
        users.emplace_back();
        home = blocks.size() - 1;
        new_bytes_ += it.bytes;
      }
      users[home].push_back(it.life);
      placed_bytes_ += it.bytes;
      if (it.id == kScratchItem) {
        d_->scratch = blocks[home].data;
      } else {
        d_->buffers[it.id] = blocks[home].data;
      }
    }
    if (w != nullptr) {
      size_t total = 0;
      for (const Workspace::Block& b : blocks) total += b.bytes;
      ETR_LOG(Info,
              "XnnpackBackend: delegate %zu: %zu bytes of value buffers and scratch placed in the "
              "method's shared workspace (%zu bytes new, %zu bytes in %zu blocks in all)",
              d_->index, placed_bytes_, new_bytes_, total, blocks.size());
    }
    return Error::Ok;
  }

  // DirectGroups: external inputs no XNNPACK run reads (through views
  // either), and external outputs whose buffer a native non-view node
  // writes and no XNNPACK run reads (XNNPACK binds its externals once).
  void find_direct_groups(const std::vector<int>& producer) {
    const size_t nv = g_.values.size();
    std::vector<uint32_t> root(nv);
    for (size_t id = 0; id < nv; ++id) root[id] = static_cast<uint32_t>(id);
    std::vector<bool> xnn_reads(nv, false);
    for (const Node& n : g_.nodes) {
      if (d_->native_state[n.index].view) root[n.outputs[0]] = root[n.inputs[0]];
    }
    for (const Run& r : d_->runs) {
      if (r.native) continue;
      for (uint32_t ni : r.nodes) {
        const Node& n = g_.nodes[ni];
        for (uint32_t k = 0; k < n.num_inputs; ++k) {
          if (n.inputs[k] != kInvalidId) xnn_reads[root[n.inputs[k]]] = true;
        }
      }
    }
    auto group = [&](uint32_t r, bool input) {
      DirectGroup g;
      g.id = r;
      g.input = input;
      size_t outputs = 0;
      for (size_t id = 0; id < nv; ++id) {
        if (root[id] != r) continue;
        g.members.push_back(static_cast<uint32_t>(id));
        if (g_.values[id].is_external_output()) ++outputs;
      }
      if (xnn_reads[r] || outputs != (input ? 0u : 1u)) return;
      d_->direct.push_back(std::move(g));
    };
    for (uint32_t id : d_->inputs) group(id, true);
    for (uint32_t id : d_->outputs) {
      const uint32_t r = root[id];
      if (producer[r] == -1 || !d_->runs[static_cast<size_t>(producer[r])].native ||
          g_.values[r].is_external_input())
        continue;
      const Node& n = g_.nodes[d_->runs[static_cast<size_t>(producer[r])].nodes[0]];
      if (d_->native_state[n.index].view) continue;
      const size_t before = d_->direct.size();
      group(r, false);
      if (d_->direct.size() > before) d_->direct.back().id = id;
    }
    d_->staging = d_->buffers;
    d_->direct_used.assign(nv, 0);
  }

  // Delegate::narrow_rounded: per run, the bf16 and fp16 values its nodes
  // write (a fused convolution's SiLU output too) that have a buffer of ours.
  void find_narrow_rounded() {
    d_->narrow_rounded.assign(d_->runs.size(), {});
    for (size_t r = 0; r < d_->runs.size(); ++r) {
      std::vector<uint32_t>& list = d_->narrow_rounded[r];
      auto add = [&](uint32_t id) {
        if (id == kInvalidId || id >= g_.values.size() ||
            g_.values[id].narrowed == NarrowFloat::None || d_->buffers[id] == nullptr)
          return;
        if (std::find(list.begin(), list.end(), id) == list.end()) list.push_back(id);
      };
      for (uint32_t ni : d_->runs[r].nodes) {
        const Node& n = g_.nodes[ni];
        if (d_->native_state[n.index].view) continue;  // its input was rounded already
        for (uint32_t k = 0; k < n.num_outputs; ++k) add(n.outputs[k]);
        add(d_->native_state[n.index].write_to);
      }
    }
  }

  Error define_value(XnnRun& r, uint32_t id, std::vector<uint32_t>* xids,
                     const std::vector<bool>& produced) {
    if (id == kInvalidId || (*xids)[id] != XNN_INVALID_VALUE_ID) return Error::Ok;
    const Value& v = vals()[id];
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
               d_->index, id, xnnpack::to_string(v.dtype), v.num_dims, xnnpack::xnn_status_text(s));
    }
    (*xids)[id] = xid;
    return Error::Ok;
  }

  Error define_subgraph(const Run& run, XnnRun& r) {
    // Count the externals first: XNNPACK wants the number up front.
    std::vector<bool> touched(g_.values.size(), false), produced(g_.values.size(), false);
    uint32_t num_ext = 0;
    for (uint32_t ni : run.nodes) {
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
               xnnpack::xnn_status_text(s));
    }
    std::vector<uint32_t> xids(g_.values.size(), XNN_INVALID_VALUE_ID);
    for (uint32_t ni : run.nodes) {
      const Node& n = g_.nodes[ni];
      for (uint32_t k = 0; k < n.num_inputs; ++k)
        ETR_RETURN_IF_ERROR(define_value(r, n.inputs[k], &xids, produced));
      for (uint32_t k = 0; k < n.num_outputs; ++k)
        ETR_RETURN_IF_ERROR(define_value(r, n.outputs[k], &xids, produced));
      const xnnpack::NodeKindDesc* desc = xnnpack::find_node_kind(n.kind);
      if (desc == nullptr || desc->define == nullptr) {
        ETR_FAIL(Error::NotSupported,
                 "XnnpackBackend: delegate %zu: node %u (%s): XNNPACK cannot run this node kind",
                 d_->index, n.index, xnnpack::to_string(n.kind));
      }
      const xnnpack::DefineContext ctx{r.subgraph, vals(), xids.data(), d_->index};
      ETR_RETURN_IF_ERROR(desc->define(ctx, n));
    }
    return Error::Ok;
  }

  // A payload may not make one delegate hold more than this in value
  // buffers (a hostile one could otherwise ask for terabytes).
  static constexpr size_t kMaxBufferBytes = size_t{1} << 30;
  static constexpr size_t kMaxScratchBytes = size_t{16} << 20;

  Delegate* d_;
  const Graph& g_;
  Instance* inst_;
  size_t total_bytes_ = 0;
  std::vector<bool> natives_;  // by node index (split_runs)
  // Native nodes whose scratch fits kMaxScratchBytes (never the fallback path).
  std::vector<bool> scratch_fits_;
  std::vector<size_t> last_reader_;  // by named buffer (find_last_readers)
  std::vector<bool> copied_only_;    // by named buffer
  std::vector<Lifetime> live_;       // by value id (roots of views)
  size_t placed_bytes_ = 0;          // bytes place_in_workspace placed
  size_t new_bytes_ = 0;             // of which in blocks it took from the method allocator
};

// The tensor argument of external value `id`, or an error naming it.
Result<Tensor*> arg_tensor(const Delegate& d, uint32_t id, Span<EValue*> args, const char* what) {
  const Value& v = d.graph.values[id];
  if (v.external_id >= args.size() || !args[v.external_id]->is_tensor()) {
    ETR_FAIL(Error::InvalidArgument,
             "XnnpackBackend: delegate %zu: %s value %u expects a tensor at argument %u (%zu "
             "arguments)",
             d.index, what, id, v.external_id, args.size());
  }
  return &args[v.external_id]->to_tensor();
}

// Checks input `id`'s tensor against the payload's value (dtype, rank,
// every dim within the exported bound) and writes its current dims to
// `dims`. A tensor of another rank is accepted only with the exported
// element count (it is then taken as the exported shape).
Error input_dims(const Delegate& d, uint32_t id, Span<EValue*> args, size_t* dims) {
  const Value& v = d.graph.values[id];
  Result<Tensor*> t_or = arg_tensor(d, id, args, "input");
  if (!t_or.ok()) return t_or.error();
  const Tensor& t = **t_or;
  if (t.dtype() != arg_dtype(v)) {
    ETR_FAIL(Error::InvalidArgument,
             "XnnpackBackend: delegate %zu: input argument %u is %s; the delegate expects %s",
             d.index, v.external_id, to_string(t.dtype()), to_string(arg_dtype(v)));
  }
  if (t.dim() != v.num_dims) {
    if (t.nbytes() != arg_nbytes(v)) {
      ETR_FAIL(Error::InvalidArgument,
               "XnnpackBackend: delegate %zu: input argument %u has %zu dims and %zu bytes; the "
               "delegate expects %u dims (%zu bytes at most)",
               d.index, v.external_id, t.dim(), t.nbytes(), v.num_dims, arg_nbytes(v));
    }
    for (uint32_t i = 0; i < v.num_dims; ++i) dims[i] = v.dims[i];
  } else {
    for (uint32_t i = 0; i < v.num_dims; ++i) {
      if (t.size(i) < 0 || static_cast<uint64_t>(t.size(i)) > v.dims[i]) {
        ETR_FAIL(Error::InvalidArgument,
                 "XnnpackBackend: delegate %zu: input argument %u: dim %u has size %lld, above "
                 "the bound %zu the program was exported with",
                 d.index, v.external_id, i, static_cast<long long>(t.size(i)), v.dims[i]);
      }
      dims[i] = static_cast<size_t>(t.size(i));
    }
  }
  if (t.nbytes() != 0 && t.const_data() == nullptr) {
    ETR_FAIL(Error::InvalidState, "XnnpackBackend: delegate %zu: argument %u has no memory",
             d.index, v.external_id);
  }
  return Error::Ok;
}

Error bind_input(const Delegate& d, const Instance& inst, uint32_t id, Span<EValue*> args) {
  const Value& v = inst.values[id];
  const Tensor& t = args[v.external_id]->to_tensor();
  if (t.nbytes() != arg_nbytes(v)) {
    ETR_FAIL(Error::Internal, "XnnpackBackend: delegate %zu: argument %u has %zu bytes, not %zu",
             d.index, v.external_id, t.nbytes(), arg_nbytes(v));
  }
  if (t.nbytes() == 0 || d.direct_used[id]) return Error::Ok;
  if (v.narrowed != NarrowFloat::None) {
    // Into the value's fp32 buffer (the tensor may be only 2-byte aligned).
    xnnpack::narrow_to_fp32(v.narrowed, static_cast<const uint16_t*>(t.const_data()),
                            reinterpret_cast<float*>(d.buffers[id]), v.numel());
  } else {
    std::memcpy(d.buffers[id], t.const_data(), t.nbytes());
  }
  return Error::Ok;
}

// Resizes output `id`'s tensor to the value's shape and checks it; with
// `copy`, copies the value into it (the delegate's buffer is not the tensor's).
Error write_output(const Delegate& d, const Instance& inst, uint32_t id, Span<EValue*> args,
                   bool copy) {
  const Value& v = inst.values[id];
  Result<Tensor*> t_or = arg_tensor(d, id, args, "output");
  if (!t_or.ok()) return t_or.error();
  Tensor& t = **t_or;
  if (t.dim() == v.num_dims) {
    int64_t sizes[xnnpack::kMaxDims];
    bool same = true;
    for (uint32_t i = 0; i < v.num_dims; ++i) {
      sizes[i] = static_cast<int64_t>(v.dims[i]);
      same = same && t.size(i) == sizes[i];
    }
    if (!same && resize_tensor(t, Span<const int64_t>(sizes, v.num_dims)) != Error::Ok) {
      ETR_FAIL(Error::InvalidArgument,
               "XnnpackBackend: delegate %zu: output argument %u cannot take the delegate's "
               "output shape (%zu elements)",
               d.index, v.external_id, v.numel());
    }
  }
  const bool widen = v.dtype == Dtype::Int32 && t.dtype() == ScalarType::Long;
  const size_t need = widen ? v.numel() * 8 : arg_nbytes(v);
  if ((!widen && t.dtype() != arg_dtype(v)) || static_cast<size_t>(t.numel()) != v.numel() ||
      t.nbytes() != need || (need != 0 && t.mutable_data() == nullptr)) {
    ETR_FAIL(Error::InvalidArgument,
             "XnnpackBackend: delegate %zu: output argument %u is %s with %zu bytes; the delegate "
             "writes %s with %zu elements",
             d.index, v.external_id, to_string(t.dtype()), t.nbytes(), to_string(arg_dtype(v)),
             v.numel());
  }
  if (!copy) return Error::Ok;
  if (widen) {
    const int32_t* s = reinterpret_cast<const int32_t*>(d.buffers[id]);
    int64_t* o = static_cast<int64_t*>(t.mutable_data());
    for (size_t i = 0; i < v.numel(); ++i) o[i] = s[i];
  } else if (v.narrowed != NarrowFloat::None) {
    xnnpack::fp32_to_narrow(v.narrowed, reinterpret_cast<const float*>(d.buffers[id]),
                            static_cast<uint16_t*>(t.mutable_data()), v.numel());
  } else if (need != 0) {
    std::memcpy(t.mutable_data(), d.buffers[id], need);
  }
  return Error::Ok;
}

// Memory of external value `id`'s tensor (checked by input_dims or write_output).
void arg_range(const Delegate& d, uint32_t id, Span<EValue*> args, uintptr_t* begin,
               uintptr_t* end) {
  const Tensor& t = args[d.graph.values[id].external_id]->to_tensor();
  *begin = reinterpret_cast<uintptr_t>(t.const_data());
  *end = *begin + t.nbytes();
}

// Points each DirectGroup at its tensor's memory when the tensor has the
// value's dtype and bytes, is 16-byte aligned and shares no byte with
// another argument; at our staging buffer otherwise.
void choose_direct(Delegate* d, const Instance& inst, Span<EValue*> args) {
  for (const DirectGroup& g : d->direct) {
    const Value& v = inst.values[g.id];
    const Tensor& t = args[v.external_id]->to_tensor();
    uintptr_t b = 0, e = 0;
    arg_range(*d, g.id, args, &b, &e);
    bool ok = v.narrowed == NarrowFloat::None && t.dtype() == scalar_type_of(v.dtype) &&
              t.nbytes() == v.nbytes() && t.nbytes() != 0 && b != 0 && b % 16 == 0;
    auto clear_of = [&](uint32_t other) {
      if (other == g.id) return true;
      uintptr_t ob = 0, oe = 0;
      arg_range(*d, other, args, &ob, &oe);
      return ob == oe || oe <= b || e <= ob;
    };
    for (uint32_t id : d->inputs) ok = ok && clear_of(id);
    for (uint32_t id : d->outputs) ok = ok && clear_of(id);
    uint8_t* p = reinterpret_cast<uint8_t*>(b);
    for (uint32_t m : g.members) d->buffers[m] = ok ? p : d->staging[m];
    d->direct_used[g.id] = ok ? 1 : 0;
  }
}

bool same_dims(const Value& v, const size_t* dims) {
  for (uint32_t i = 0; i < v.num_dims; ++i) {
    if (v.dims[i] != dims[i]) return false;
  }
  return true;
}

// The instance built for the current input shapes: a cached one, or a new
// one (evicting the least recently used) built now.
Result<Instance*> instance_for(Delegate* d, Span<EValue*> args, void* pool) {
  size_t* dims = d->input_dims.data();
  for (size_t i = 0; i < d->inputs.size(); ++i)
    ETR_RETURN_IF_ERROR(input_dims(*d, d->inputs[i], args, dims + i * xnnpack::kMaxDims));
  Instance* lru = &d->shapes[0];
  for (Instance& inst : d->shapes) {
    if (!inst.used) {
      if (lru->used) lru = &inst;
      continue;
    }
    bool match = true;
    for (size_t i = 0; i < d->inputs.size() && match; ++i)
      match = same_dims(inst.values[d->inputs[i]], dims + i * xnnpack::kMaxDims);
    if (match) return &inst;
    if (lru->used && inst.last_use < lru->last_use) lru = &inst;
  }
  // A new shape: derive every value's dims and build runtimes for them.
  // This allocates (XNNPACK packs weights and plans its memory per
  // runtime); a shape already cached allocates nothing.
  lru->reset();
  lru->values = d->graph.values;
  for (size_t i = 0; i < d->inputs.size(); ++i) {
    Value& v = lru->values[d->inputs[i]];
    for (uint32_t k = 0; k < v.num_dims; ++k) v.dims[k] = dims[i * xnnpack::kMaxDims + k];
  }
  Error e = xnnpack::infer_shapes(d->graph.values, d->graph.nodes, &lru->values, d->index);
  if (e == Error::Ok) e = Builder(d, lru).build_instance(pool);
  if (e != Error::Ok) {
    lru->reset();
    return e;
  }
  return lru;
}

// With a cache directory: keys the delegate's packed weights by the hash of
// its payload, the sizes of the named-data buffers it reads and its
// native_fp32 option, and opens the cache file (weight_cache.h; the
// weights' contents are checked blob by blob as init packs).
void open_weight_cache(Delegate* d, const std::string& dir) {
  if (dir.empty()) return;
  std::vector<uint64_t> sizes;
  for (const FreeableBuffer& b : d->graph.named_buffers) sizes.push_back(b.size());
  sizes.push_back(d->native_fp32 ? 1 : 0);
  const xnnpack::ByteRange parts[2] = {{d->payload.data(), d->payload.size()},
                                       {sizes.data(), sizes.size() * sizeof(uint64_t)}};
  const xnnpack::CacheKey key =
      xnnpack::hash_parts(Span<const xnnpack::ByteRange>(parts, 2), d->init_pool);
  d->cache = xnnpack::WeightCache::open(dir, key, d->index, d->init_pool);
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
    d->counted.inner = ctx.method_allocator;
    d->allocator = ctx.method_allocator == nullptr ? nullptr : &d->counted;
    d->workspace = acquire_workspace(ctx.method_allocator);
    const char* cache_dir = nullptr;
    for (const BackendOption& o : ctx.options) {
      if (StringView(o.key) == StringView("weight_cache_dir")) {
        if (o.kind != BackendOption::Kind::String) {
          destroy(d);
          ETR_FAIL(Error::InvalidArgument,
                   "XnnpackBackend: delegate %zu: option 'weight_cache_dir' takes a string",
                   ctx.delegate_index);
        }
        cache_dir = o.string_value;
        continue;
      }
      if (StringView(o.key) != StringView("native_fp32")) continue;
      if (o.kind != BackendOption::Kind::Bool) {
        destroy(d);
        ETR_FAIL(Error::InvalidArgument,
                 "XnnpackBackend: delegate %zu: option 'native_fp32' takes a bool",
                 ctx.delegate_index);
      }
      d->native_fp32 = o.bool_value;
    }
    d->payload = std::move(*processed);
    Error err = xnnpack::parse_graph(d->payload.data(), d->payload.size(), ctx.named_data,
                                     ctx.delegate_index, &d->graph);
    d->init_pool = ctx.thread_pool;
    d->named_data = ctx.named_data;
    if (err == Error::Ok) open_weight_cache(d, xnnpack::weight_cache_dir(cache_dir));
    if (err == Error::Ok) err = xnnpack::widen_narrow_values(&d->graph, ctx.delegate_index);
    if (err == Error::Ok) {
      void* pool = ctx.thread_pool == nullptr ? nullptr : ctx.thread_pool->native_handle();
      err = Builder(d, &d->shapes[0]).build(pool);
      d->shapes[0].last_use = ++d->clock;
      d->input_dims.assign(d->inputs.size() * xnnpack::kMaxDims, 0);
    }
    if (err == Error::Ok && d->cache != nullptr) {
      d->cache->write(ctx.thread_pool);
      if (!d->cache->mapped()) d->cache.reset();
    }
    d->init_pool = nullptr;
    d->named_data = nullptr;
    if (err != Error::Ok) {
      destroy(d);
      return err;
    }
    ETR_LOG(Info,
            "XnnpackBackend: delegate %zu: took %zu bytes from the method allocator (value "
            "buffers, packed weights, copied biases, scratch)",
            d->index, d->counted.bytes);
    return static_cast<DelegateHandle*>(d);
  }

  // External outputs are written, external inputs read; an argument the
  // graph does not name is not touched.
  ArgAccess arg_access(DelegateHandle* handle, size_t index) const override {
    const Delegate* d = static_cast<const Delegate*>(handle);
    if (d == nullptr) return ArgAccess::Unknown;
    for (uint32_t id : d->outputs) {
      if (d->graph.values[id].external_id == index) return ArgAccess::Write;
    }
    return ArgAccess::Read;
  }

  Error execute(BackendExecutionContext& ctx, DelegateHandle* handle,
                Span<EValue*> args) const override {
    Delegate* d = static_cast<Delegate*>(handle);
    if (d == nullptr) ETR_FAIL(Error::DelegateInvalidHandle, "XnnpackBackend: null delegate");
    // The value buffers may be another delegate's too (Workspace).
    std::unique_lock<std::mutex> lock;
    if (d->workspace != nullptr) lock = std::unique_lock<std::mutex>(d->workspace->run);
    void* pool = ctx.thread_pool == nullptr ? nullptr : ctx.thread_pool->native_handle();
    Result<Instance*> inst_or = instance_for(d, args, pool);
    if (!inst_or.ok()) return inst_or.error();
    Instance& inst = **inst_or;
    inst.last_use = ++d->clock;
    if (pool != inst.pool_handle) ETR_RETURN_IF_ERROR(Builder::create_runtimes(d, &inst, pool));
    for (uint32_t id : d->outputs) ETR_RETURN_IF_ERROR(write_output(*d, inst, id, args, false));
    choose_direct(d, inst, args);
    for (uint32_t id : d->inputs) ETR_RETURN_IF_ERROR(bind_input(*d, inst, id, args));
    for (size_t i = 0; i < d->runs.size(); ++i) {
      const Run& r = d->runs[i];
      if (r.native) {
        const Node& n = d->graph.nodes[r.nodes[0]];
        ETR_RETURN_IF_ERROR(xnnpack::run_native_node(inst.values, n, d->native_state[n.index],
                                                     d->buffers.data(), ctx.thread_pool, d->scratch,
                                                     d->scratch_bytes, d->index));
      } else {
        const xnn_status s = xnn_invoke_runtime(inst.xruns[i].runtime);
        if (s != xnn_status_success) {
          ETR_FAIL(Error::Internal,
                   "XnnpackBackend: delegate %zu: XNNPACK run of nodes %u..%u failed: %s", d->index,
                   r.nodes.front(), r.nodes.back(), xnnpack::xnn_status_text(s));
        }
      }
      for (uint32_t id : d->narrow_rounded[i]) {
        xnnpack::round_to_narrow(inst.values[id].narrowed, reinterpret_cast<float*>(d->buffers[id]),
                                 inst.values[id].numel());
      }
    }
    for (uint32_t id : d->outputs)
      ETR_RETURN_IF_ERROR(write_output(*d, inst, id, args, !d->direct_used[id]));
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

size_t xnnpack_shape_builds() { return g_shape_builds.load(std::memory_order_relaxed); }

Error register_xnnpack_backend(BackendRegistry* registry) {
  BackendRegistry& r = registry == nullptr ? default_backend_registry() : *registry;
  return r.add(Backend{"XnnpackBackend", &kBackend});
}

}  // namespace etr

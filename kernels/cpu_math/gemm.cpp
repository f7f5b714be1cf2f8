// The GEMM driver behind util/gemm.h (BLIS-style): C is cut into tiles of
// mc x nc (multiples of the 6x16 micro-tile), each computed by one worker over
// K blocks of kc: the A block (mc x kc) and B block (kc x nc) are packed into
// the worker's scratch unless the caller packed the operand already (or, for
// a short A, B is row-major and the AVX2 or AVX-512 kernel reads its full 16-column
// panels in place), then the micro-kernel sweeps the tile B panel by B panel
// (a B panel stays in L1 while the A block streams from L2). Partial sums of
// earlier K blocks live in C; the epilogue's biases and clamp are applied
// with the last block. Workers claim runs of tiles from a shared counter
// (tiles ordered so that neighbours share their B block, which is then
// packed once when K fits one block). The micro-kernel (AVX-512, AVX2 + FMA or plain C++) and the
// block limits are chosen once from cpu_features(); a temp allocator too
// small for the full scratch gets fewer workers, then smaller blocks.
#include "kernels/cpu_math/gemm.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>

#include "kernels/cpu_math/cpu_features.h"
#include "kernels/cpu_math/gemm_internal.h"
#include "kernels/cpu_math/vec_math.h"
#include "runtime/core/checked_math.h"
#include "runtime/platform/log.h"

namespace etr {
namespace opt {
namespace {

using internal::kGemmMr;
using internal::kGemmNr;
using internal::MicroKernelFn;
using internal::MicroTile;

// Block limits per micro-kernel (measured on a Zen 5 core, 48 KiB L1d, 1 MiB
// L2): the B panel (kc x 16) stays in L1, the A block (mc x kc) in L2.
struct Blocking {
  internal::MicroKernelFn kernel;
  int64_t mc_max, nc_max, kc_max;
  // The kernel honours MicroTile::ldb, so a row-major B can be read in place;
  // and MicroTile::lda, so a row-major A can be (with a packed B).
  bool reads_b_in_place = false;
  bool reads_a_in_place = false;
  // The kernel applies the epilogue's SiLU to the tile in registers
  // (MicroTile::silu), instead of a pass over the finished tile.
  bool applies_silu = false;
  // B is read in place with any number of rows of A when its panel rows are
  // whole cache lines (b_rows_line_aligned; measured for the AVX-512 kernel).
  bool reads_aligned_b_in_place = false;
};

const Blocking& blocking() {
#if defined(__aarch64__) && defined(__ARM_NEON)
  // NEON is part of AArch64: no run-time check.
  static const Blocking b{&internal::f32_gemm_ukernel__neon_6x16, 144, 256, 320};
#else
  static const Blocking b =
      cpu_features().avx512f ? Blocking{&internal::f32_gemm_ukernel__avx512_6x16,
                                        192,
                                        256,
                                        512,
                                        true,
                                        false,
                                        true,
                                        true}
      : cpu_features().avx2_fma
          ? Blocking{&internal::f32_gemm_ukernel__avx2_6x16, 144, 256, 320, true, true}
          : Blocking{&internal::f32_gemm_ukernel__generic_6x16, 144, 256, 320};
#endif
  return b;
}

// gemm_scratch_bytes(args) without a thread count: enough for this many.
constexpr size_t kAssumedThreads = 2;
// Below this many multiply-adds one thread does it all.
constexpr int64_t kMinParallelWork = int64_t{1} << 20;
// The same for batched products (bmm), which split by product first (no
// operand packed twice): the decoder's [4, 64, 64] x [4, 64, 32] attention
// products (524K multiply-adds, 10.6 us on one thread).
constexpr int64_t kMinBatchedParallelWork = int64_t{1} << 18;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up(int64_t v, int64_t to) { return ceil_div(v, to) * to; }

struct Plan {
  int64_t mc = 0, nc = 0, kc = 0;
  int64_t mblocks = 1, nblocks = 1, kblocks = 1;
  int64_t tiles = 0;    // batch * mblocks * nblocks
  int64_t workers = 1;  // <= threads, <= tiles
  size_t a_floats = 0;  // per-worker scratch for A (0: A is packed or read in place)
  size_t b_floats = 0;  // per-worker scratch for B (0: B is packed)
  // A row-major A is read in place when B comes packed (weights): every A
  // element then feeds one micro-tile row per B panel anyway, and packing
  // it would cost a full copy of the activations per call.
  bool a_in_place = false;
  // Few rows against packed weights (a decode step's matrix-vector product):
  // each 16-column panel runs through every K block before the next panel,
  // so the packed B streams once, front to back, instead of in K-block
  // slices. Each output still sums its K blocks in the same order.
  bool panel_major = false;
  // Tiles in (batch, M block, N block) order, N fastest, instead of M
  // fastest: when only A is packed here (B comes packed) and K is one block,
  // a worker's run of tiles then packs each A block once rather than once
  // per N block (M = 197 rows is two M blocks).
  bool n_fastest = false;
};

bool reads_a_in_place(const GemmArgs& g) {
  return g.packed_a == nullptr && g.packed_b != nullptr && g.k_scale == nullptr &&
         blocking().reads_a_in_place && g.a.col_stride == 1 && g.a.row_stride >= g.k;
}

// Splits `extent` (in units of `unit`-wide panels) into about `want` blocks
// of whole panels; sets *block (a multiple of unit) and returns the count.
int64_t split(int64_t extent, int64_t unit, int64_t want, int64_t* block) {
  const int64_t panels = std::max<int64_t>(1, ceil_div(extent, unit));
  want = std::min(std::max<int64_t>(want, 1), panels);
  *block = ceil_div(panels, want) * unit;
  return ceil_div(std::max<int64_t>(extent, 1), *block);
}

// Saturating product of non-negative sizes (only compared to a threshold).
int64_t work_of(const GemmArgs& g) {
  int64_t w = 1;
  for (int64_t v : {g.batch, g.m, g.n, std::max<int64_t>(g.k, 1)}) {
    if (!checked_mul_i64(w, v, &w)) return INT64_MAX;
  }
  return w;
}

// `shrink` halves the block limits that many times (for a small temp).
Plan make_plan(const GemmArgs& g, size_t threads, int shrink = 0) {
  Plan p;
  const Blocking& bl = blocking();
  const int64_t kc_max = std::max<int64_t>(bl.kc_max >> shrink, 16);
  const int64_t mc_max = std::max<int64_t>(bl.mc_max >> shrink, kGemmMr);
  const int64_t nc_max = std::max<int64_t>(bl.nc_max >> shrink, kGemmNr);
  p.kblocks = g.k == 0 ? 1 : ceil_div(g.k, kc_max);
  p.kc = g.k == 0 ? 0 : ceil_div(g.k, p.kblocks);
  int64_t want_m = ceil_div(g.m, mc_max);
  int64_t want_n = ceil_div(g.n, nc_max);
  p.mblocks = split(g.m, kGemmMr, want_m, &p.mc);
  p.nblocks = split(g.n, kGemmNr, want_n, &p.nc);
  // Buffers sized before the split for threads, so a worker's scratch does
  // not depend on the thread count.
  p.a_in_place = reads_a_in_place(g);
  p.panel_major = g.packed_b != nullptr && g.m <= kGemmMr && p.kblocks > 1;
  if (g.packed_a == nullptr && !p.a_in_place) {
    // panel_major packs the (single) A panel for the whole K once.
    p.a_floats = static_cast<size_t>(p.panel_major ? round_up(kGemmMr * g.k, 16)
                                                   : round_up(p.mc * p.kc, 16));
  }
  if (g.packed_b == nullptr) p.b_floats = static_cast<size_t>(round_up(p.nc * p.kc, 16));
  const int64_t min_work = g.batch > 1 ? kMinBatchedParallelWork : kMinParallelWork;
  const int64_t t = work_of(g) < min_work ? 1 : static_cast<int64_t>(threads);
  // More tiles until every worker gets the same count (or no split is left).
  // Splitting N repeats the A packing per tile, splitting M the B packing:
  // repeat the one that is packed already or smaller.
  const bool prefer_n = g.packed_a != nullptr || (g.packed_b == nullptr && g.m <= g.n);
  const int64_t panels_m = ceil_div(g.m, kGemmMr), panels_n = ceil_div(g.n, kGemmNr);
  for (;;) {
    const int64_t tiles = g.batch * p.mblocks * p.nblocks;
    // Balanced: an equal count per worker, or enough tiles that one more
    // on some workers matters little.
    if (tiles >= t && (tiles % t == 0 || tiles >= 8 * t)) break;
    const bool can_m = want_m < panels_m;
    const bool can_n = want_n < panels_n;
    if (!can_m && !can_n) break;
    // Blocks of at least 4 panels keep the edge tiles efficient; below
    // that, split whichever dimension still can.
    const bool n_ok = can_n && panels_n >= 4 * (want_n + 1);
    const bool m_ok = can_m && panels_m >= 4 * (want_m + 1);
    if (n_ok || m_ok ? n_ok && (prefer_n || !m_ok) : can_n && (prefer_n || !can_m)) {
      p.nblocks = split(g.n, kGemmNr, ++want_n, &p.nc);
    } else {
      p.mblocks = split(g.m, kGemmMr, ++want_m, &p.mc);
    }
  }
  p.tiles = g.batch * p.mblocks * p.nblocks;
  p.workers = std::max<int64_t>(1, std::min<int64_t>(t, p.tiles));
  p.n_fastest = g.packed_b != nullptr && g.packed_a == nullptr && !p.a_in_place && !p.panel_major &&
                p.kblocks == 1 && p.mblocks > 1 && p.nblocks > 1;
  return p;
}

// One operand block for the micro-kernel: panel 0 and the stride between
// panels; for B also the stride between k (the kernel's ldb) and, when B is
// read in place, the packed panel that stands in for a last, partial one
// (whose columns past B's edge must not be read).
struct Block {
  const float* data = nullptr;
  ptrdiff_t panel_stride = 0;
  ptrdiff_t ldb = kGemmNr;
  const float* edge = nullptr;
};

// A row-major B is read in place (not packed) when A has at most this many
// rows: each B panel then serves only a few A panels, and packing it costs
// more than its contiguous reads save (the projection layers of MobileNets).
constexpr int64_t kInPlaceBMaxM = 32;

// With more rows of A, B is still read in place when every 16-column panel
// row is one whole 64-byte cache line (B's start, row stride and batch stride
// multiples of 16 floats, 64-byte aligned) and a packed block would not be
// reused (one M block, or several K blocks, which repack B per tile anyway):
// the micro-kernel's row loads then touch one line each, and skipping the
// copy into scratch saves more than the packed panel's contiguity gains.
// Measured on Zen 4 with the AVX-512 kernel: ResNet-50's 1x1 convolutions over
// 56x56 and 28x28 images into 64 to 128 channels 3-12% faster, its stride-2
// 3x3 im2col products too; with two M blocks sharing one packed K block
// (64 -> 256 channels at 56x56) in place was 5% slower; over 14x14 images,
// whose 196-float rows straddle lines, no gain.
bool b_rows_line_aligned(const GemmArgs& g) {
  constexpr int64_t kLineFloats = 16;
  return reinterpret_cast<uintptr_t>(g.b.data) % (kLineFloats * sizeof(float)) == 0 &&
         g.b.row_stride % kLineFloats == 0 && (g.batch <= 1 || g.batch_stride_b % kLineFloats == 0);
}

// Sweeps tile C[i0 .. i0+mc, j0 .. j0+nc) for one K block of kc.
void macro_tile(const GemmArgs& g, MicroTile t, Block a, Block b, float* c, int64_t i0, int64_t mc,
                int64_t j0, int64_t nc, MicroKernelFn uk) {
  const GemmEpilogue& e = g.epilogue;
  for (int64_t jr = 0; jr < nc; jr += kGemmNr) {
    t.nr = static_cast<int>(std::min<int64_t>(kGemmNr, nc - jr));
    const bool edge = b.edge != nullptr && t.nr < kGemmNr;
    t.b = edge ? b.edge : b.data + (jr / kGemmNr) * b.panel_stride;
    t.ldb = edge ? kGemmNr : b.ldb;
    t.col_bias = e.col_bias == nullptr ? nullptr : e.col_bias + j0 + jr;
    for (int64_t ir = 0; ir < mc; ir += kGemmMr) {
      t.mr = static_cast<int>(std::min<int64_t>(kGemmMr, mc - ir));
      t.a = a.data + (ir / kGemmMr) * a.panel_stride;
      t.c = c + (i0 + ir) * g.ldc + j0 + jr;
      t.row_bias = e.row_bias == nullptr ? nullptr : e.row_bias + i0 + ir;
      uk(t);
    }
  }
}

struct Worker {
  const GemmArgs* args;
  const Plan* plan;
  float* scratch;
  MicroKernelFn uk;
  // The next unclaimed run of `claim` tiles.
  std::atomic<int64_t>* next;
  int64_t claim;

  // Worker w (its own scratch) claims runs of tiles until none is left.
  void run(int64_t w) const {
    const GemmArgs& g = *args;
    const Plan& p = *plan;
    float* abuf = scratch + static_cast<size_t>(w) * (p.a_floats + p.b_floats);
    float* bbuf = abuf + p.a_floats;
    // Which block each buffer holds (tile coordinates), to skip repacking.
    int64_t held_a = -1, held_b = -1;
    MicroTile t;
    t.alpha = g.epilogue.alpha;
    t.beta = g.epilogue.beta;
    t.ldc = g.ldc;
    t.lo = g.epilogue.lo;
    t.hi = g.epilogue.hi;
    t.clamp = g.epilogue.lo > -INFINITY || g.epilogue.hi < INFINITY;
    for (;;) {
      const int64_t first = next->fetch_add(1, std::memory_order_relaxed) * claim;
      if (first >= p.tiles) break;
      const int64_t end = std::min(p.tiles, first + claim);
      for (int64_t tile = first; tile < end; ++tile)
        run_tile(tile, t, abuf, bbuf, &held_a, &held_b);
    }
  }

  // Tile `tile` (batch, N block, M block; M fastest, or batch, M block, N
  // block with Plan::n_fastest): every K block of it.
  void run_tile(int64_t tile, MicroTile t, float* abuf, float* bbuf, int64_t* held_a_io,
                int64_t* held_b_io) const {
    const GemmArgs& g = *args;
    const Plan& p = *plan;
    int64_t& held_a = *held_a_io;
    int64_t& held_b = *held_b_io;
    const int64_t per_batch = p.mblocks * p.nblocks;
    t.silu = g.epilogue.silu && blocking().applies_silu;
    const bool b_in_place =
        g.packed_b == nullptr && g.k_scale == nullptr && blocking().reads_b_in_place &&
        (g.m <= kInPlaceBMaxM || (blocking().reads_aligned_b_in_place &&
                                  (p.mblocks == 1 || p.kblocks > 1) && b_rows_line_aligned(g))) &&
        g.b.col_stride == 1 && g.b.row_stride >= g.n;
    const bool a_in_place = p.a_in_place;
    // GemmArgs::k_scale (and its shift and clamp) goes to B, or to A when B
    // comes packed.
    const float* a_scale = g.packed_b != nullptr ? g.k_scale : nullptr;
    const float* a_shift = g.packed_b != nullptr ? g.k_shift : nullptr;
    const bool a_relu = g.packed_b != nullptr && g.k_relu;
    const int64_t bi = tile / per_batch;
    const int64_t jb = p.n_fastest ? tile % p.nblocks : tile % per_batch / p.mblocks;
    const int64_t ib = p.n_fastest ? tile % per_batch / p.nblocks : tile % p.mblocks;
    const int64_t i0 = ib * p.mc, mc = std::min(p.mc, g.m - i0);
    const int64_t j0 = jb * p.nc, nc = std::min(p.nc, g.n - j0);
    float* c = g.c + bi * g.batch_stride_c;
    if (p.panel_major) {
      run_panel_major(t, bi, i0, mc, j0, nc, c, abuf);
      apply_silu(c, i0, mc, j0, nc);
      return;
    }
    for (int64_t kb = 0; kb < p.kblocks; ++kb) {
      const int64_t p0 = kb * p.kc, kc = std::min(p.kc, g.k - p0);
      const bool reuse = p.kblocks == 1;
      Block a, b;
      if (g.packed_a != nullptr) {
        a = {g.packed_a->data + i0 * g.k + p0 * kGemmMr, kGemmMr * g.k};
      } else if (a_in_place) {
        a = {g.a.data + bi * g.batch_stride_a + i0 * g.a.row_stride + p0, kGemmMr * g.a.row_stride};
      } else {
        const int64_t key = bi * p.mblocks + ib;
        if (!reuse || held_a != key) {
          MatrixView av = g.a;
          av.data += bi * g.batch_stride_a;
          internal::pack_a_panels(av, i0, mc, p0, kc, abuf, a_scale, a_shift, a_relu);
          held_a = reuse ? key : -1;
        }
        a = {abuf, kGemmMr * kc};
      }
      if (g.packed_b != nullptr) {
        b = {g.packed_b->data + j0 * g.k + p0 * kGemmNr, kGemmNr * g.k};
      } else if (b_in_place) {
        // Full panels straight from B; a partial last one packed.
        const float* at = g.b.data + bi * g.batch_stride_b;
        b = {at + p0 * g.b.row_stride + j0, kGemmNr, g.b.row_stride, nullptr};
        const int64_t full = nc / kGemmNr * kGemmNr;
        if (full < nc) {
          MatrixView bv = g.b;
          bv.data = at;
          internal::pack_b_panels(bv, p0, kc, j0 + full, nc - full, bbuf);
          b.edge = bbuf;
        }
      } else {
        const int64_t key = bi * p.nblocks + jb;
        if (!reuse || held_b != key) {
          MatrixView bv = g.b;
          bv.data += bi * g.batch_stride_b;
          internal::pack_b_panels(bv, p0, kc, j0, nc, bbuf, g.k_scale, g.k_shift, g.k_relu);
          held_b = reuse ? key : -1;
        }
        b = {bbuf, kGemmNr * kc};
      }
      t.kc = kc;
      t.lda = a_in_place ? g.a.row_stride : 0;
      t.first = kb == 0;
      t.last = kb + 1 == p.kblocks;
      macro_tile(g, t, a, b, c, i0, mc, j0, nc, uk);
    }
    apply_silu(c, i0, mc, j0, nc);
  }

  // The epilogue's SiLU, then its post activation, on a finished tile.
  void apply_silu(float* c, int64_t i0, int64_t mc, int64_t j0, int64_t nc) const {
    const GemmEpilogue& e = args->epilogue;
    const bool silu = e.silu && !blocking().applies_silu;  // else the kernel applied it
    if (!silu && e.post == nullptr) return;
    UnaryParams silu_params;
    silu_params.kind = UnaryKind::kSilu;
    for (int64_t i = i0; i < i0 + mc; ++i) {
      float* row = c + i * args->ldc + j0;
      if (silu) unary(silu_params, row, row, static_cast<size_t>(nc));
      if (e.post != nullptr) unary(*e.post, row, row, static_cast<size_t>(nc));
    }
  }

  // Plan::panel_major: rows i0 .. i0 + mc (one A panel) against columns
  // j0 .. j0 + nc of the packed B, panel by panel, each through all K blocks.
  void run_panel_major(MicroTile t, int64_t bi, int64_t i0, int64_t mc, int64_t j0, int64_t nc,
                       float* c, float* abuf) const {
    const GemmArgs& g = *args;
    const Plan& p = *plan;
    const float* a0 = nullptr;
    int64_t a_k_step = kGemmMr;  // floats between K positions of the A panel
    t.lda = 0;
    if (g.packed_a != nullptr) {
      a0 = g.packed_a->data + i0 * g.k;
    } else if (p.a_in_place) {
      a0 = g.a.data + bi * g.batch_stride_a + i0 * g.a.row_stride;
      a_k_step = 1;
      t.lda = g.a.row_stride;
    } else {
      MatrixView av = g.a;
      av.data += bi * g.batch_stride_a;
      internal::pack_a_panels(av, i0, mc, 0, g.k, abuf, g.k_scale, g.k_shift, g.k_relu);
      a0 = abuf;
    }
    const GemmEpilogue& e = g.epilogue;
    t.mr = static_cast<int>(mc);
    t.row_bias = e.row_bias == nullptr ? nullptr : e.row_bias + i0;
    t.ldb = kGemmNr;
    for (int64_t jr = 0; jr < nc; jr += kGemmNr) {
      t.nr = static_cast<int>(std::min<int64_t>(kGemmNr, nc - jr));
      t.col_bias = e.col_bias == nullptr ? nullptr : e.col_bias + j0 + jr;
      t.c = c + i0 * g.ldc + j0 + jr;
      const float* panel = g.packed_b->data + (j0 + jr) * g.k;
      for (int64_t kb = 0; kb < p.kblocks; ++kb) {
        const int64_t p0 = kb * p.kc;
        t.kc = std::min(p.kc, g.k - p0);
        t.a = a0 + p0 * a_k_step;
        t.b = panel + p0 * kGemmNr;
        t.first = kb == 0;
        t.last = kb + 1 == p.kblocks;
        uk(t);
      }
    }
  }
};

Error check_args(const GemmArgs& g) {
  ETR_CHECK_OR_FAIL(g.m >= 0 && g.n >= 0 && g.k >= 0 && g.batch >= 0, Error::InvalidArgument,
                    "gemm: negative size (m %lld, n %lld, k %lld, batch %lld)",
                    static_cast<long long>(g.m), static_cast<long long>(g.n),
                    static_cast<long long>(g.k), static_cast<long long>(g.batch));
  if (g.m == 0 || g.n == 0 || g.batch == 0) return Error::Ok;
  ETR_CHECK_OR_FAIL(g.c != nullptr && g.ldc >= g.n, Error::InvalidArgument,
                    "gemm: C is null or its leading dimension %lld is below n %lld",
                    static_cast<long long>(g.ldc), static_cast<long long>(g.n));
  if (g.k == 0) return Error::Ok;
  if (g.packed_a != nullptr) {
    ETR_CHECK_OR_FAIL(
        g.packed_a->data != nullptr && g.packed_a->rows == g.m && g.packed_a->cols == g.k,
        Error::InvalidArgument, "gemm: packed A is [%lld, %lld], expected [%lld, %lld]",
        static_cast<long long>(g.packed_a->rows), static_cast<long long>(g.packed_a->cols),
        static_cast<long long>(g.m), static_cast<long long>(g.k));
  } else {
    ETR_CHECK_OR_FAIL(g.a.data != nullptr, Error::InvalidArgument, "gemm: A is null");
  }
  ETR_CHECK_OR_FAIL(g.k_scale == nullptr || g.packed_a == nullptr || g.packed_b == nullptr,
                    Error::InvalidArgument, "gemm: k_scale needs an operand packed per call");
  ETR_CHECK_OR_FAIL(g.k_scale != nullptr || (g.k_shift == nullptr && !g.k_relu),
                    Error::InvalidArgument, "gemm: k_shift and k_relu need a k_scale");
  if (g.packed_b != nullptr) {
    ETR_CHECK_OR_FAIL(
        g.packed_b->data != nullptr && g.packed_b->rows == g.k && g.packed_b->cols == g.n,
        Error::InvalidArgument, "gemm: packed B is [%lld, %lld], expected [%lld, %lld]",
        static_cast<long long>(g.packed_b->rows), static_cast<long long>(g.packed_b->cols),
        static_cast<long long>(g.k), static_cast<long long>(g.n));
  } else {
    ETR_CHECK_OR_FAIL(g.b.data != nullptr, Error::InvalidArgument, "gemm: B is null");
  }
  return Error::Ok;
}

// Scratch bytes of one worker; false on overflow.
bool worker_bytes(const Plan& p, size_t* bytes) {
  size_t floats = 0;
  return checked_add(p.a_floats, p.b_floats, &floats) && checked_mul(floats, sizeof(float), bytes);
}

size_t threads_of(ThreadPool* pool) {
  return pool == nullptr ? 1 : std::max<size_t>(1, pool->num_threads());
}

}  // namespace

size_t gemm_scratch_bytes(const GemmArgs& args, size_t threads) {
  if (args.m <= 0 || args.n <= 0 || args.k < 0 || args.batch <= 0) return 0;
  const Plan p = make_plan(args, std::max<size_t>(threads, 1));
  size_t bytes = 0;
  if (!worker_bytes(p, &bytes) || !checked_mul(bytes, static_cast<size_t>(p.workers), &bytes)) {
    return SIZE_MAX;
  }
  return bytes == 0 ? 0 : bytes + 64;
}

size_t gemm_scratch_bytes(const GemmArgs& args) {
  return gemm_scratch_bytes(args, kAssumedThreads);
}

namespace {

// Takes scratch for as many workers as `temp` holds (at least one), with
// smaller blocks when it cannot hold one worker's; null when even the
// smallest does not fit. Updates *p to the plan the scratch is for.
float* take_scratch(const GemmArgs& g, size_t threads, MemoryAllocator* temp, Plan* p,
                    size_t* per_worker) {
  for (int shrink = 0; shrink <= 5; ++shrink) {
    *p = make_plan(g, threads, shrink);
    if (!worker_bytes(*p, per_worker)) continue;
    if (*per_worker == 0) return nullptr;
    for (; temp != nullptr && p->workers >= 1; --p->workers) {
      size_t bytes = 0;
      if (!checked_mul(*per_worker, static_cast<size_t>(p->workers), &bytes)) continue;
      void* s = temp->allocate(bytes, 64);
      if (s != nullptr) return static_cast<float*>(s);
    }
    p->workers = 1;
  }
  return nullptr;
}

}  // namespace

Error gemm(const GemmArgs& args, MemoryAllocator* temp, ThreadPool* pool) {
  ETR_RETURN_IF_ERROR(check_args(args));
  if (args.m == 0 || args.n == 0 || args.batch == 0) return Error::Ok;
  Plan p;
  size_t per_worker = 0;
  float* scratch = take_scratch(args, threads_of(pool), temp, &p, &per_worker);
  ETR_CHECK_OR_FAIL(scratch != nullptr || per_worker == 0, Error::MemoryAllocationFailed,
                    "gemm: temp memory holds less than the %zu bytes of packing scratch needed "
                    "(%zu for full speed) for m %lld, n %lld, k %lld",
                    per_worker, gemm_scratch_bytes(args, 1), static_cast<long long>(args.m),
                    static_cast<long long>(args.n), static_cast<long long>(args.k));
  // Tiles are claimed from a shared counter, so a thread that starts late
  // (or is descheduled) leaves its share to the others instead of holding
  // up the call: runs of consecutive tiles (neighbours share packed blocks),
  // about four per worker, whole N blocks when they hold several tiles.
  std::atomic<int64_t> next{0};
  int64_t claim = p.tiles;
  if (p.workers > 1) {
    claim = std::max<int64_t>(1, p.tiles / (4 * p.workers));
    const int64_t inner = p.n_fastest ? p.nblocks : p.mblocks;
    if (inner > 1 && claim >= inner) claim = claim / inner * inner;
  }
  const Worker worker{&args, &p, scratch, blocking().kernel, &next, claim};
  parallel_for(pool, static_cast<size_t>(p.workers), 1, [&](size_t begin, size_t end) {
    for (size_t w = begin; w < end; ++w) worker.run(static_cast<int64_t>(w));
  });
  return Error::Ok;
}

}  // namespace opt
}  // namespace etr

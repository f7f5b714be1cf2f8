"""Writes kernels/llm/test/llm_op_refs.h: inputs and PyTorch reference outputs
for the llama:: kernel tests (kernels/llm/test/op_llm_test.cpp).

    /opt/tv/bin/python kernels/llm/test/make_llm_op_refs.py

The references are plain torch math, computed in float64 from the float32
(or float64) inputs: the cache updates are slice / index assignments, the
attention is softmax(q k^T * scale + mask) v over cache positions
0 .. start_pos + S - 1 with the key/value heads repeated for GQA
(repeat_interleave, as ExecuTorch's own test reference does) and, when
causal, query row i limited to keys 0 .. start_pos + i. ExecuTorch's AOT
library (torch.ops.llama.*) is used as well when it loads, to confirm the
reference agrees with it; with torch 2.11 it does not load, and the plain
math is the reference.
"""
import math
import os

import torch

torch.manual_seed(20261127)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "llm_op_refs.h")


def sdpa_ref(q, k_cache, v_cache, start_pos, mask=None, causal=False, scale=None):
    """q [B, S, Hq, D], caches [B, max_S, Hkv, D] -> [B, S, Hq, D] (float64)."""
    q = q.double()
    b, s, hq, d = q.shape
    # With a mask every cache position takes part (the mask is [S, max_S]).
    kv_len = k_cache.shape[1] if mask is not None else start_pos + s
    k = k_cache[:, :kv_len].double()
    v = v_cache[:, :kv_len].double()
    reps = hq // k.shape[2]
    k = k.repeat_interleave(reps, dim=2)
    v = v.repeat_interleave(reps, dim=2)
    qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)  # [B, H, *, D]
    sc = scale if scale is not None else 1.0 / math.sqrt(d)
    scores = (qt @ kt.transpose(-1, -2)) * sc  # [B, H, S, kv_len]
    if mask is not None:
        scores = scores + mask.double()
    if causal:
        rows = torch.arange(s).unsqueeze(1) + start_pos
        cols = torch.arange(kv_len).unsqueeze(0)
        scores = scores.masked_fill(cols > rows, float("-inf"))
    return (torch.softmax(scores, dim=-1) @ vt).transpose(1, 2)


def try_official():
    try:
        import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401

        return torch.ops.llama.custom_sdpa
    except Exception:  # the AOT library needs the torch it was built for
        return None


def fmt(t):
    """C++ literals: float32 with 9 significant digits (exact), float64 with 17."""
    vals = t.reshape(-1).tolist()
    if t.dtype in (torch.int64, torch.int8):
        return ", ".join(str(int(x)) for x in vals)
    single = t.dtype == torch.float32

    def one(x):
        if not math.isfinite(x):
            return "-INFINITY" if x < 0 else "INFINITY"
        return ("%.9gf" if single else "%.17g") % x if "e" in ("%.9g" % x) or "." in ("%.9g" % x) \
            else ("%.1ff" if single else "%.1f") % x

    return ", ".join(one(x) for x in vals)


lines = []


def emit(name, t, ctype="float"):
    shape = ", ".join(str(x) for x in t.shape)
    lines.append(f"// {name}: [{shape}]")
    lines.append(f"inline const std::vector<{ctype}> {name} = {{{fmt(t)}}};")


def rnd(*shape):
    return torch.randn(*shape, dtype=torch.float32)


official = try_official()
checked_official = 0


def check_official(q, k, v, start_pos, mask, causal, scale, ref):
    global checked_official
    if official is None:
        return
    got = official(q, k, v, start_pos, mask, 0.0, causal, scale)
    assert torch.allclose(got.double(), ref, atol=1e-5), "reference disagrees with torch.ops.llama"
    checked_official += 1


# ---- update_cache: value [1, 3, 2, 4] into cache [1, 8, 2, 4] at start_pos 4.
value = rnd(1, 3, 2, 4)
cache = rnd(1, 8, 2, 4)
expected = cache.clone()
expected[:, 4:7] = value
emit("kUpdValue", value)
emit("kUpdCache", cache)
emit("kUpdExpected", expected)

# ---- update_cache on an int8 cache (quantized KV caches move their bytes the same way):
# value [1, 2, 1, 3] into cache [1, 4, 1, 3] at start_pos 1.
value = torch.randint(-128, 128, (1, 2, 1, 3), dtype=torch.int8)
cache = torch.randint(-128, 128, (1, 4, 1, 3), dtype=torch.int8)
expected = cache.clone()
expected[:, 1:3] = value
emit("kUpdI8Value", value, "int8_t")
emit("kUpdI8Cache", cache, "int8_t")
emit("kUpdI8Expected", expected, "int8_t")

# ---- update_cache_with_indices: value [2, 2, 2, 3] into cache [2, 6, 2, 3].
value = rnd(2, 2, 2, 3)
cache = rnd(2, 6, 2, 3)
indices = torch.tensor([[5, 0], [2, 3]], dtype=torch.int64)
expected = cache.clone()
for b in range(2):
    for s in range(2):
        expected[b, indices[b, s]] = value[b, s]
emit("kIdxValue", value)
emit("kIdxCache", cache)
emit("kIdxIndices", indices, "int64_t")
emit("kIdxExpected", expected)


def sdpa_case(prefix, b, s, hq, hkv, d, max_s, start_pos, causal, scale=None, mask=None,
              dtype=torch.float32, unread_from=None):
    q = torch.randn(b, s, hq, d, dtype=dtype)
    k = torch.randn(b, max_s, hkv, d, dtype=dtype)
    v = torch.randn(b, max_s, hkv, d, dtype=dtype)
    # Positions the attention must not read (past start_pos + S, or from
    # unread_from on) hold huge values: reading them would show.
    first = start_pos + s if unread_from is None else unread_from
    k[:, first:] = 1e4
    v[:, first:] = -1e4
    ref = sdpa_ref(q, k, v, start_pos, mask, causal, scale)
    if dtype == torch.float32:
        check_official(q, k, v, start_pos, mask, causal, scale, ref)
    ctype = "float" if dtype == torch.float32 else "double"
    emit(prefix + "Q", q, ctype)
    emit(prefix + "K", k, ctype)
    emit(prefix + "V", v, ctype)
    if mask is not None:
        emit(prefix + "Mask", mask.to(dtype), ctype)
    emit(prefix + "Expected", ref.to(dtype), ctype)


# Prefill: S = 5 at start_pos 0, causal, GQA Hq = 4 over Hkv = 2.
sdpa_case("kPrefill", 1, 5, 4, 2, 8, 16, 0, True)
# Decode: S = 1 at start_pos 7, causal, GQA.
sdpa_case("kDecode", 1, 1, 4, 2, 8, 16, 7, True)
# An explicit additive mask [S, max_S] over the whole cache (finite values and
# -inf), not causal: every cache position takes part, start_pos (2) none. Rows
# 7 and 8 lie past start_pos + S and are read; row 9 is masked for every query.
mask = torch.randn(3, 10)
mask[0, 3:5] = float("-inf")
mask[1, 0] = float("-inf")
mask[2, 1] = float("-inf")
mask[:, 9] = float("-inf")
sdpa_case("kMask", 1, 3, 4, 2, 8, 10, 2, False, mask=mask, unread_from=9)
# A non-default scale, batch 2, S = 5 at start_pos 3, causal, Hq = Hkv = 2.
sdpa_case("kScale", 2, 5, 2, 2, 8, 12, 3, True, scale=0.3)
# Not causal, no mask: every row sees all start_pos + S keys.
sdpa_case("kFull", 1, 4, 2, 1, 8, 9, 2, False)
# Several query blocks (16 rows) and key blocks (128 keys): S = 20 at start_pos 130.
sdpa_case("kLong", 1, 20, 4, 1, 8, 160, 130, True)
# Double.
sdpa_case("kDouble", 1, 3, 2, 1, 4, 6, 1, True, dtype=torch.float64)

# ---- sdpa_with_kv_cache: k, v [1, 5, 2, 8] into caches [1, 12, 2, 8] at start_pos 2,
# then causal attention of q [1, 5, 4, 8] over positions 0 .. 6.
q = rnd(1, 5, 4, 8)
k = rnd(1, 5, 2, 8)
v = rnd(1, 5, 2, 8)
k_cache = rnd(1, 12, 2, 8)
v_cache = rnd(1, 12, 2, 8)
k_after = k_cache.clone()
v_after = v_cache.clone()
k_after[:, 2:7] = k
v_after[:, 2:7] = v
ref = sdpa_ref(q, k_after, v_after, 2, None, True, None)
emit("kKvQ", q)
emit("kKvK", k)
emit("kKvV", v)
emit("kKvKeyCache", k_cache)
emit("kKvValueCache", v_cache)
emit("kKvKeyCacheAfter", k_after)
emit("kKvValueCacheAfter", v_after)
emit("kKvExpected", ref.float())

header = [
    "// Generated by kernels/llm/test/make_llm_op_refs.py (torch %s); do not edit." % torch.__version__,
    "// Inputs and PyTorch reference outputs for the llama:: kernel tests.",
    "// torch.ops.llama cross-checks: %d." % checked_official,
    "#pragma once",
    "",
    "#include <cmath>",
    "#include <cstdint>",
    "#include <vector>",
    "",
    "namespace etr {",
    "namespace testing {",
    "namespace llm_refs {",
    "",
]
footer = ["", "}  // namespace llm_refs", "}  // namespace testing", "}  // namespace etr", ""]
with open(OUT, "w") as f:
    f.write("\n".join(header + lines + footer))
print("wrote", OUT, "official cross-checks:", checked_official)
# The tree's clang-format style (scripts/format.sh), so that formatting the
# tree leaves the generated header as written.
try:
    import subprocess

    subprocess.run(["clang-format", "--style=file", "-i", OUT], check=True, cwd=HERE)
except (OSError, subprocess.CalledProcessError) as e:
    print("clang-format not applied:", e)

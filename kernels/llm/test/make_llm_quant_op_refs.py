"""Writes kernels/llm/test/llm_quant_op_refs.h: inputs and PyTorch reference
outputs for the tests of llama::custom_quantized_sdpa.out and
llama::fast_hadamard_transform.out (kernels/llm/test/op_llm_quant_test.cpp).

    /opt/tv/bin/python kernels/llm/test/make_llm_quant_op_refs.py

custom_quantized_sdpa: float q, k, v are quantized the way the exporter's
QuantizedKVCache / QuantizedSDPA do (quantized_decomposed
choose_qparams_per_token_asymmetric + quantize_per_token, int8; zero points
cast to int8, scales to float32). The reference is ExecuTorch's own test
reference (extension/llm/custom_ops/test_quantized_sdpa.py, _sdpa_ref):
dequantize_per_token of q, k and v with those int8 zero points and float32
scales, then attention, here in float64: softmax(q k^T * scale [+ mask]) v
over cache positions 0 .. start_pos + S - 1 (causal: query row i limited to
keys 0 .. start_pos + i), or over every cache position when a mask is given
(ExecuTorch's kernel ignores start_pos then), with the key/value heads
repeated for GQA (repeat_interleave). Layouts: [B, S, H, D] or, with
is_seq_at_dim_2, [B, H, S, D] (the same values transposed).

fast_hadamard_transform: x @ H_n / sqrt(n) in float64, H_n the Sylvester
Hadamard matrix built by Kronecker products of [[1, 1], [1, -1]] (the
natural order ExecuTorch's butterfly computes).

ExecuTorch 1.5.1's AOT library (torch.ops.llama.*) does not load with torch
2.11 or 2.10 (undefined symbol torch::Library::_def), so the official
kernels cannot be cross-checked here; the references are the plain math
above.
"""
import math
import os

import torch
from torch.ao.quantization.fx._decomposed import quantized_decomposed_lib  # noqa: F401

torch.manual_seed(20261128)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "llm_quant_op_refs.h")
Q = torch.ops.quantized_decomposed

lines = []


def fmt(t):
    vals = t.reshape(-1).tolist()
    if not t.dtype.is_floating_point:
        return ", ".join(str(int(x)) for x in vals)
    single = t.dtype == torch.float32

    def one(x):
        if not math.isfinite(x):
            return "-INFINITY" if x < 0 else "INFINITY"
        s = ("%.9g" if single else "%.17g") % x
        if "e" not in s and "." not in s:
            s += ".0"
        return s + ("f" if single else "")

    return ", ".join(one(x) for x in vals)


def emit(name, t, ctype="float"):
    shape = ", ".join(str(x) for x in t.shape)
    lines.append(f"// {name}: [{shape}]")
    lines.append(f"inline const std::vector<{ctype}> {name} = {{{fmt(t)}}};")


def quantize(x):
    """The exporter's per-token int8 quantization of x (last dim = a token row):
    (int8 values, int8 zero points, float32 scales)."""
    scale, zp = Q.choose_qparams_per_token_asymmetric.default(x, torch.int8)
    qx = Q.quantize_per_token(x, scale, zp, -128, 127, torch.int8)
    return qx, zp.to(torch.int8), scale.to(torch.float32)


def dequantize(qx, zp, scale):
    """ExecuTorch's test reference: dequantize_per_token to float32."""
    return Q.dequantize_per_token(qx, scale.double(), zp.long(), -128, 127, torch.int8,
                                  torch.float32)


def qsdpa_ref(q, k, v, start_pos, mask, causal, scale):
    """[B, S, Hq, D] over [B, max_S, Hkv, D] (float32 dequantized) -> float64."""
    b, s, hq, d = q.shape
    kv_len = k.shape[1] if mask is not None else start_pos + s
    kk = k[:, :kv_len].double().repeat_interleave(hq // k.shape[2], dim=2).transpose(1, 2)
    vv = v[:, :kv_len].double().repeat_interleave(hq // k.shape[2], dim=2).transpose(1, 2)
    sc = scale if scale is not None else 1.0 / math.sqrt(d)
    scores = (q.double().transpose(1, 2) @ kk.transpose(-1, -2)) * sc
    if mask is not None:
        scores = scores + mask.double()
    if causal:
        rows = torch.arange(s).unsqueeze(1) + start_pos
        scores = scores.masked_fill(torch.arange(kv_len).unsqueeze(0) > rows, float("-inf"))
    return (torch.softmax(scores, dim=-1) @ vv).transpose(1, 2)


def qsdpa_case(prefix, b, s, hq, hkv, d, max_s, start_pos, causal, seq_at_dim_2, scale=None,
               mask=None):
    """Emits prefix + Q, K, V (int8), QZp, QScale, KZp, KScale, VZp, VScale,
    [Mask,] Expected, all in the case's layout."""
    q = torch.randn(b, s, hq, d) * 2
    k = torch.randn(b, max_s, hkv, d) * 2 + 0.5  # asymmetric ranges: zero points != 0
    v = torch.randn(b, max_s, hkv, d) * 3 - 1
    qq, qz, qs = quantize(q)
    kq, kz, ks = quantize(k)
    vq, vz, vs = quantize(v)
    if mask is None:
        # Cache positions past start_pos + S hold extreme values: reading them would show.
        kq[:, start_pos + s:] = 127
        vq[:, start_pos + s:] = -128
        ks[:, start_pos + s:] = 1e3
        vs[:, start_pos + s:] = 1e3
        kz[:, start_pos + s:] = -128
        vz[:, start_pos + s:] = 127
    ref = qsdpa_ref(dequantize(qq, qz, qs), dequantize(kq, kz, ks), dequantize(vq, vz, vs),
                    start_pos, mask, causal, scale)

    def lay(t):
        return t.transpose(1, 2).contiguous() if seq_at_dim_2 else t

    for name, t, ctype in [("Q", qq, "int8_t"), ("K", kq, "int8_t"), ("V", vq, "int8_t"),
                           ("QZp", qz, "int8_t"), ("QScale", qs, "float"),
                           ("KZp", kz, "int8_t"), ("KScale", ks, "float"),
                           ("VZp", vz, "int8_t"), ("VScale", vs, "float")]:
        emit(prefix + name, lay(t), ctype)
    if mask is not None:
        emit(prefix + "Mask", mask.float())
    emit(prefix + "Expected", lay(ref.float()))


# Causal prefill at start_pos 0, GQA (4 query heads over 2), [B, S, H, D].
qsdpa_case("kQPrefill", 1, 5, 4, 2, 8, 16, 0, True, False)
# Causal prefill of a second chunk (start_pos 3), batch 2, 6 query heads over 2,
# head_dim 12 (vector tails), [B, H, S, D].
qsdpa_case("kQChunk", 2, 6, 6, 2, 12, 16, 3, True, True)
# Decode (S = 1) at start_pos 9, one key/value head for 4 query heads, head_dim 20.
qsdpa_case("kQDecode", 1, 1, 4, 1, 20, 12, 9, True, False)
# The same decode in the [B, H, S, D] layout.
qsdpa_case("kQDecodeT", 1, 1, 4, 1, 20, 12, 9, True, True)
# Several query blocks (16 rows) and key blocks (128 keys): S = 20 at start_pos 130,
# head_dim 40 (the AVX2 loops' 32- and 16-wide steps and a scalar tail).
qsdpa_case("kQLong", 1, 20, 2, 1, 40, 160, 130, True, False)
# Not causal, no mask: every row sees all start_pos + S positions; explicit scale.
qsdpa_case("kQFull", 1, 3, 2, 2, 16, 9, 4, False, True, scale=0.3)
# A mask over the whole cache [S, max_S] (finite values and -inf, as the ring
# buffer's), not causal: every cache position takes part.
mask = torch.randn(3, 10)
mask[0, 6:] = float("-inf")
mask[1, 0] = float("-inf")
mask[2, 2:5] = float("-inf")
qsdpa_case("kQMask", 1, 3, 4, 2, 8, 10, 0, False, False, mask=mask)

# ---- fast_hadamard_transform


def sylvester(n):
    h = torch.ones(1, 1, dtype=torch.float64)
    while h.shape[0] < n:
        h = torch.cat([torch.cat([h, h], 1), torch.cat([h, -h], 1)], 0)
    return h


def fht_ref(x):
    n = x.shape[-1]
    return (x.double() @ sylvester(n)) / math.sqrt(n)


MAX_LOG2 = 10
lines.append(f"inline constexpr int kHadamardMaxLog2 = {MAX_LOG2};")
for k in range(MAX_LOG2 + 1):
    n = 1 << k
    x = torch.randn(2, n)
    emit(f"kHad{n}In", x)
    emit(f"kHad{n}Expected", fht_ref(x).float())
x = torch.randn(2, 3, 16)
emit("kHad3dIn", x)
emit("kHad3dExpected", fht_ref(x).float())
x = torch.randn(2, 64, dtype=torch.float64)
emit("kHadDoubleIn", x, "double")
emit("kHadDoubleExpected", fht_ref(x), "double")

header = [
    "// Generated by kernels/llm/test/make_llm_quant_op_refs.py (torch %s); do not edit."
    % torch.__version__,
    "// Inputs and PyTorch reference outputs for the quantized attention and",
    "// Hadamard transform kernel tests.",
    "#pragma once",
    "",
    "#include <cmath>",
    "#include <cstdint>",
    "#include <vector>",
    "",
    "namespace etr {",
    "namespace testing {",
    "namespace llm_quant_refs {",
    "",
]
footer = ["", "}  // namespace llm_quant_refs", "}  // namespace testing", "}  // namespace etr",
          ""]
with open(OUT, "w") as f:
    f.write("\n".join(header + lines + footer))
print("wrote", OUT)
# The tree's clang-format style (scripts/format.sh), so that formatting the
# tree leaves the generated header as written.
try:
    import subprocess

    subprocess.run(["clang-format", "--style=file", "-i", OUT], check=True, cwd=HERE)
except (OSError, subprocess.CalledProcessError) as e:
    print("clang-format not applied:", e)

"""Conformance files for ExecuTorch's llama:: custom operators (the kernels/llm
library): custom_quantized_sdpa and fast_hadamard_transform.

Imported by export_conformance.py, which calls register(spec, Method).

The operators' schemas come from ExecuTorch's AOT library
(libcustom_ops_aot_lib.so), which does not load with the torch of the
generator's environment; when `torch.ops.llama.<op>` is missing, the schema
(functional and .out, as that library registers them) is defined here with a
reference made of eager PyTorch ops, registered as CompositeExplicitAutograd
(so torch.export keeps the operator itself in the graph and to_executorch
turns it into its .out variant):

* custom_quantized_sdpa: ExecuTorch's own test reference
  (extension/llm/custom_ops/test_quantized_sdpa.py, _sdpa_ref): q, k and v
  dequantized per token (quantized_decomposed.dequantize_per_token), then
  softmax(q k^T * scale [+ mask]) v with the key/value heads repeated for GQA,
  over cache positions 0 .. start_pos + S - 1 (causal: row i limited to keys
  0 .. start_pos + i), or over the whole cache when a mask is given; float64
  math, float32 result. Layout [B, S, H, D], or [B, H, S, D] with
  is_seq_at_dim_2.
* fast_hadamard_transform: x @ H_n / sqrt(n) in float64 (H_n the Sylvester
  Hadamard matrix, the order of ExecuTorch's butterfly), in the input dtype.
"""
import math

import torch

_LIB = []

SCHEMAS = {
    "custom_quantized_sdpa": (
        "custom_quantized_sdpa(Tensor query, Tensor key, Tensor value, SymInt start_pos, "
        "Tensor? attn_mask=None, float drpout_p=0.0, bool is_causal=False, float? scale=None, "
        "Tensor? q_zero_points=None, Tensor? q_scales=None, Tensor? k_zero_points=None, "
        "Tensor? k_scales=None, Tensor? v_zero_points=None, Tensor? v_scales=None, "
        "bool is_seq_at_dim_2=False) -> Tensor",
        "custom_quantized_sdpa.out(Tensor query, Tensor key, Tensor value, SymInt start_pos, "
        "Tensor? attn_mask=None, float drpout_p=0.0, bool is_causal=False, float? scale=None, "
        "Tensor? q_zero_points=None, Tensor? q_scales=None, Tensor? k_zero_points=None, "
        "Tensor? k_scales=None, Tensor? v_zero_points=None, Tensor? v_scales=None, "
        "bool is_seq_at_dim_2=False, *, Tensor(a!) out) -> Tensor(a!)"),
    "fast_hadamard_transform": (
        "fast_hadamard_transform(Tensor mat) -> Tensor",
        "fast_hadamard_transform.out(Tensor mat, *, Tensor(a!) out) -> Tensor(a!)"),
}


def _dequantize(x, zp, scale):
    return torch.ops.quantized_decomposed.dequantize_per_token(
        x, scale.double(), zp.long(), -128, 127, torch.int8, torch.float32)


def quantized_sdpa_ref(query, key, value, start_pos, attn_mask=None, drpout_p=0.0,
                       is_causal=False, scale=None, q_zero_points=None, q_scales=None,
                       k_zero_points=None, k_scales=None, v_zero_points=None, v_scales=None,
                       is_seq_at_dim_2=False):
    q = _dequantize(query, q_zero_points, q_scales).double()
    k = _dequantize(key, k_zero_points, k_scales).double()
    v = _dequantize(value, v_zero_points, v_scales).double()
    if not is_seq_at_dim_2:  # to [B, H, S, D]
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    s = q.shape[2]
    kv_len = k.shape[2] if attn_mask is not None else start_pos + s
    reps = q.shape[1] // k.shape[1]
    k = k[:, :, :kv_len].repeat_interleave(reps, dim=1)
    v = v[:, :, :kv_len].repeat_interleave(reps, dim=1)
    sc = scale if scale is not None else 1.0 / math.sqrt(q.shape[3])
    scores = (q @ k.transpose(-1, -2)) * sc
    if attn_mask is not None:
        scores = scores + attn_mask.double()
    if is_causal:
        rows = torch.arange(s).unsqueeze(1) + start_pos
        scores = scores.masked_fill(torch.arange(kv_len).unsqueeze(0) > rows, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    if not is_seq_at_dim_2:
        out = out.transpose(1, 2)
    return out.float().contiguous()


def _sylvester(n):
    h = torch.ones(1, 1, dtype=torch.float64)
    while h.shape[0] < n:
        h = torch.cat([torch.cat([h, h], 1), torch.cat([h, -h], 1)], 0)
    return h


def hadamard_ref(mat):
    n = mat.shape[-1]
    return ((mat.double() @ _sylvester(n)) / math.sqrt(n)).to(mat.dtype)


def _meta(name):
    def meta(first, *args, **kwargs):
        dtype = torch.float32 if name == "custom_quantized_sdpa" else first.dtype
        return torch.empty(first.shape, dtype=dtype, device="meta")
    return meta


# The .out variants of the per-token quantized_decomposed operators (as
# ExecuTorch's kernels/quantized/quantized.yaml declares them), which only
# ExecuTorch's quantized AOT library defines; torch has the functional ones.
PER_TOKEN_OUT = {
    "choose_qparams_per_token_asymmetric": (
        "choose_qparams_per_token_asymmetric.out(Tensor input, ScalarType dtype, *, "
        "Tensor(a!) scale_out, Tensor(b!) zero_point_out) -> (Tensor(a!), Tensor(b!))"),
    "quantize_per_token": (
        "quantize_per_token.out(Tensor input, Tensor scales, Tensor zero_points, int quant_min, "
        "int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)"),
    "dequantize_per_token": (
        "dequantize_per_token.out(Tensor input, Tensor scales, Tensor zero_points, "
        "int quant_min, int quant_max, ScalarType dtype, ScalarType output_dtype, *, "
        "Tensor(a!) out) -> Tensor(a!)"),
}


def _define_per_token_out():
    qd = torch.ops.quantized_decomposed
    lib = torch.library.Library("quantized_decomposed", "FRAGMENT")
    _LIB.append(lib)
    for name, schema in PER_TOKEN_OUT.items():
        if "out" in getattr(qd, name).overloads():
            continue
        lib.define(schema)
        functional = getattr(qd, name).default
        if name == "choose_qparams_per_token_asymmetric":
            def impl(x, dtype, *, scale_out, zero_point_out, _f=functional):
                s, z = _f(x, dtype)
                scale_out.resize_(s.shape).copy_(s)
                zero_point_out.resize_(z.shape).copy_(z)
                return scale_out, zero_point_out
        else:
            def impl(*args, out, _f=functional):
                r = _f(*args)
                out.resize_(r.shape).copy_(r)
                return out
        lib.impl(name + ".out", impl, "CompositeExplicitAutograd")


def _define():
    """Defines the llama:: operators missing from torch.ops (see the top),
    and the per-token quantized_decomposed out variants the exporter's
    quantized KV cache chain needs."""
    if _LIB:
        return
    import torch.ao.quantization.fx._decomposed  # noqa: F401  (the per-token ops)
    _define_per_token_out()
    lib = torch.library.Library("llama", "FRAGMENT")
    _LIB.append(lib)
    refs = {"custom_quantized_sdpa": quantized_sdpa_ref,
            "fast_hadamard_transform": hadamard_ref}
    for name, (functional, out_variant) in SCHEMAS.items():
        if hasattr(torch.ops.llama, name):
            continue  # the official library (or another definition) is there
        ref = refs[name]
        lib.define(functional)
        lib.define(out_variant)
        lib.impl(name, ref, "CompositeExplicitAutograd")

        def out_impl(*args, _ref=ref, out, **kwargs):
            res = _ref(*args, **kwargs)
            out.resize_(res.shape)
            out.copy_(res)
            return out

        lib.impl(name + ".out", out_impl, "CompositeExplicitAutograd")
        # Shapes for torch.export's fake tensors: both outputs have the first
        # argument's shape (Float for the quantized attention).
        lib.impl(name, _meta(name), "Meta")


def _quantize(x):
    """The exporter's per-token int8 quantization (QuantizedKVCache._quantize,
    then the casts QuantizedSDPA makes): int8 values, int8 zero points,
    float32 scales."""
    qd = torch.ops.quantized_decomposed
    scale, zp = qd.choose_qparams_per_token_asymmetric.default(x, torch.int8)
    qx = qd.quantize_per_token(x, scale, zp, -128, 127, torch.int8)
    return qx, zp.to(torch.int8), scale.to(torch.float32)


def _qsdpa_args(b, s, hq, hkv, d, max_s, seq_at_dim_2):
    q = torch.randn(b, s, hq, d) * 2
    k = torch.randn(b, max_s, hkv, d) * 2 + 0.5
    v = torch.randn(b, max_s, hkv, d) * 3 - 1
    qq, qz, qs = _quantize(q)
    kq, kz, ks = _quantize(k)
    vq, vz, vs = _quantize(v)
    t = (lambda x: x.transpose(1, 2).contiguous()) if seq_at_dim_2 else (lambda x: x)
    return tuple(t(x) for x in (qq, kq, vq, qz, qs, kz, ks, vz, vs))


def register(spec, Method):
    """Adds the llama files to the generator's SPECS (family "llm")."""
    _define()
    L = torch.ops.llama

    def qsdpa_method(name, shape, start_pos, causal, seq_at_dim_2, scale=None, mask=None,
                     n_cases=2, flat=False):
        # flat: the program takes each tensor flattened and reshapes it itself
        # (a [1, H, 1, D] query has tied strides, and the exporter may give
        # such an input a dim order the bundled-input loader refuses; inside
        # the program the kernel accepts either order).
        shapes = [a.shape for a in _qsdpa_args(*shape, seq_at_dim_2)]

        def fn(*args):
            if flat:
                args = tuple(a.reshape(s) for a, s in zip(args, shapes)) + args[len(shapes):]
            q, k, v, qz, qs, kz, ks, vz, vs = args[:9]
            m = args[9] if len(args) > 9 else None
            return L.custom_quantized_sdpa.default(
                q, k, v, start_pos, m, 0.0, causal, scale, qz, qs, kz, ks, vz, vs,
                seq_at_dim_2)
        cases = []
        for _ in range(n_cases):
            args = _qsdpa_args(*shape, seq_at_dim_2)
            if flat:
                args = tuple(a.reshape(-1) for a in args)
            cases.append(args + ((mask,) if mask is not None else ()))
        return Method(name, fn, cases, torch.int8, ranks="1" if flat else "4")

    @spec("llama_custom_quantized_sdpa", "llama::custom_quantized_sdpa.out", "llm",
          (2e-5, 2e-5))
    def _b_qsdpa():
        mask = torch.randn(3, 10)
        mask[0, 6:] = float("-inf")
        mask[2, 2:5] = float("-inf")
        return [
            # shape: (B, S, Hq, Hkv, D, max_S)
            qsdpa_method("prefill_gqa", (1, 5, 4, 2, 8, 16), 0, True, False),
            qsdpa_method("chunk_seq_dim2", (2, 6, 6, 2, 12, 16), 3, True, True),
            qsdpa_method("decode", (1, 1, 4, 1, 20, 12), 9, True, False),
            qsdpa_method("decode_seq_dim2", (1, 1, 4, 1, 20, 12), 9, True, True, flat=True),
            qsdpa_method("blocks", (1, 20, 2, 1, 40, 160), 130, True, False, n_cases=1),
            qsdpa_method("not_causal_scale", (1, 3, 2, 2, 16, 9), 4, False, True, scale=0.3),
            qsdpa_method("mask", (1, 3, 4, 2, 8, 10), 0, False, False, mask=mask),
        ]

    @spec("llama_quantized_kv_attention", ["llama::custom_quantized_sdpa.out",
                                            "quantized_decomposed::quantize_per_token.out"],
          "llm", (2e-5, 2e-5))
    def _b_qkv_chain():
        # The exporter's chain inside the program: float q, k, v quantized per
        # token (choose_qparams_per_token_asymmetric, quantize_per_token, the
        # casts of the zero points and scales), then the quantized attention.
        def fn(q, k, v):
            qq, qz, qs = _quantize(q)
            kq, kz, ks = _quantize(k)
            vq, vz, vs = _quantize(v)
            return L.custom_quantized_sdpa.default(qq, kq, vq, 2, None, 0.0, True, None, qz,
                                                   qs, kz, ks, vz, vs, False)
        cases = [(torch.randn(1, 4, 4, 16), torch.randn(1, 8, 2, 16) + 0.5,
                  torch.randn(1, 8, 2, 16) * 2) for _ in range(2)]
        return [Method("forward", fn, cases, torch.float32, ranks="4")]

    @spec("llama_fast_hadamard_transform", "llama::fast_hadamard_transform.out", "llm",
          (1e-5, 1e-6))
    def _b_fht():
        fn = L.fast_hadamard_transform.default
        methods = []
        for k in range(11):
            n = 1 << k
            methods.append(Method(f"n{n}", fn, [(torch.randn(3, n),) for _ in range(2)],
                                  torch.float32, ranks="2"))
        methods.append(Method("rank3", fn, [(torch.randn(2, 3, 64),)], torch.float32,
                              ranks="3"))
        methods.append(Method("float64", fn, [(torch.randn(2, 32, dtype=torch.float64),)],
                              torch.float64, ranks="2"))
        return methods

"""Writes kernels/llm/test/llm_kv_attention.pte and llm_program_refs.h: a
small exported program that keeps a KV cache in two mutable buffers, the way
ExecuTorch 1.5 LLM exports do (llama::update_cache on each cache, then
llama::custom_sdpa over them, start_pos from a Long input through
aten::_local_scalar_dense, dynamic sequence length), and PyTorch's eager
outputs for three calls in a row (prefill of 5 tokens, one decode step, two
more tokens), each depending on the cache the previous calls filled.

    /opt/tv/bin/python kernels/llm/test/make_llm_program.py

The operators get Python definitions here (schemas from ExecuTorch's
custom_ops.py, plain torch math for the values) when ExecuTorch's AOT
library does not load, as with torch 2.11.
"""
import math
import os
import subprocess

import numpy as np
import torch
from torch.library import Library, impl

HERE = os.path.dirname(os.path.abspath(__file__))


def attention(q, k, v, start_pos, attn_mask=None, drpout_p=0.0, is_causal=False, scale=None):
    s = q.shape[1]
    kv_len = start_pos + s
    reps = q.shape[2] // k.shape[2]
    kk = k[:, :kv_len].repeat_interleave(reps, dim=2).transpose(1, 2)
    vv = v[:, :kv_len].repeat_interleave(reps, dim=2).transpose(1, 2)
    sc = scale if scale is not None else 1.0 / math.sqrt(q.shape[3])
    scores = (q.transpose(1, 2) @ kk.transpose(-1, -2)) * sc
    if attn_mask is not None:
        scores = scores + attn_mask
    if is_causal:
        rows = torch.arange(s).unsqueeze(1) + start_pos
        scores = scores.masked_fill(torch.arange(kv_len).unsqueeze(0) > rows, float("-inf"))
    return (torch.softmax(scores, dim=-1) @ vv).transpose(1, 2).contiguous()


def define_ops():
    try:
        import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401

        return "ExecuTorch's AOT library"
    except Exception:
        pass
    lib = Library("llama", "FRAGMENT")
    define_ops.lib = lib  # kept alive with the definitions
    lib.define("update_cache(Tensor value, Tensor(a!) cache, SymInt start_pos) -> Tensor")
    lib.define("update_cache.out(Tensor value, Tensor(a!) cache, SymInt start_pos, *, "
               "Tensor(b!) out) -> Tensor(b!)")
    lib.define("custom_sdpa(Tensor query, Tensor key, Tensor value, SymInt start_pos, "
               "Tensor? attn_mask=None, float drpout_p=0.0, bool is_causal=False, "
               "float? scale=None) -> Tensor")
    lib.define("custom_sdpa.out(Tensor query, Tensor key, Tensor value, SymInt start_pos, "
               "Tensor? attn_mask=None, float drpout_p=0.0, bool is_causal=False, "
               "float? scale=None, *, Tensor(a!) out) -> Tensor(a!)")

    @impl(lib, "update_cache", "CompositeExplicitAutograd")
    def _update(value, cache, start_pos):
        cache[:, start_pos:start_pos + value.shape[1]] = value
        return torch.empty((1,), dtype=value.dtype)

    @impl(lib, "update_cache", "Meta")
    def _update_meta(value, cache, start_pos):
        return torch.empty((1,), dtype=value.dtype, device="meta")

    @impl(lib, "update_cache.out", "CompositeExplicitAutograd")
    def _update_out(value, cache, start_pos, *, out):
        cache[:, start_pos:start_pos + value.shape[1]] = value
        return out

    @impl(lib, "custom_sdpa", "CompositeExplicitAutograd")
    def _sdpa(q, k, v, start_pos, attn_mask=None, drpout_p=0.0, is_causal=False, scale=None):
        return attention(q, k, v, start_pos, attn_mask, drpout_p, is_causal, scale)

    @impl(lib, "custom_sdpa", "Meta")
    def _sdpa_meta(q, k, v, start_pos, attn_mask=None, drpout_p=0.0, is_causal=False, scale=None):
        return torch.empty_like(q)

    @impl(lib, "custom_sdpa.out", "CompositeExplicitAutograd")
    def _sdpa_out(q, k, v, start_pos, attn_mask=None, drpout_p=0.0, is_causal=False, scale=None,
                  *, out):
        out.copy_(attention(q, k, v, start_pos, attn_mask, drpout_p, is_causal, scale))
        return out

    return "Python definitions (plain torch math)"


MAX_SEQ, HQ, HKV, D = 16, 4, 2, 8


class KvAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("k_cache", torch.zeros(1, MAX_SEQ, HKV, D))
        self.register_buffer("v_cache", torch.zeros(1, MAX_SEQ, HKV, D))

    def forward(self, q, k, v, input_pos):
        pos = input_pos[0].item()
        torch._check(pos >= 0)
        torch._check(pos + q.shape[1] <= MAX_SEQ)
        torch.ops.llama.update_cache(k, self.k_cache, pos)
        torch.ops.llama.update_cache(v, self.v_cache, pos)
        return torch.ops.llama.custom_sdpa(q, self.k_cache, self.v_cache, pos, None, 0.0, True,
                                           None)


def main():
    source = define_ops()
    from executorch.exir import EdgeCompileConfig, to_edge

    torch.manual_seed(20261128)
    steps = []
    pos = 0
    for s in (5, 1, 2):
        steps.append((torch.randn(1, s, HQ, D), torch.randn(1, s, 2, D), torch.randn(1, s, 2, D),
                      torch.tensor([pos], dtype=torch.int64)))
        pos += s
    seq = torch.export.Dim("seq", min=1, max=8)
    dyn = ({1: seq}, {1: seq}, {1: seq}, None)
    ep = torch.export.export(KvAttention(), steps[0], dynamic_shapes=dyn)
    prog = to_edge(ep, compile_config=EdgeCompileConfig(_check_ir_validity=False)).to_executorch()
    with open(os.path.join(HERE, "llm_kv_attention.pte"), "wb") as f:
        f.write(prog.buffer)
    eager = KvAttention()
    lines = [
        "// Generated by kernels/llm/test/make_llm_program.py (torch %s, llama ops from %s);"
        % (torch.__version__, source),
        "// do not edit. Inputs and eager outputs of llm_kv_attention.pte's forward for three",
        "// calls in a row (the KV cache carries over): q, k, v, input_pos -> out.",
        "#pragma once", "", "#include <cstdint>", "#include <vector>", "",
        "namespace etr {", "namespace testing {", "namespace llm_program_refs {", "",
        "struct Step {", "  std::vector<int32_t> q_sizes, kv_sizes;",
        "  std::vector<float> q, k, v;", "  int64_t input_pos;", "  std::vector<float> out;", "};",
        "", "inline const std::vector<Step> kSteps = {",
    ]

    def floats(t):
        return "{" + ", ".join("%.9gf" % x if ("." in "%.9g" % x or "e" in "%.9g" % x)
                               else "%.1ff" % x for x in t.reshape(-1).tolist()) + "}"

    for q, k, v, p in steps:
        out = eager(q, k, v, p)
        lines.append("    {{%s}, {%s}, %s, %s, %s, %d, %s}," % (
            ", ".join(map(str, q.shape)), ", ".join(map(str, k.shape)), floats(q), floats(k),
            floats(v), int(p[0]), floats(out.detach())))
    lines += ["};", "", "}  // namespace llm_program_refs", "}  // namespace testing",
              "}  // namespace etr", ""]
    out_h = os.path.join(HERE, "llm_program_refs.h")
    with open(out_h, "w") as f:
        f.write("\n".join(lines))
    try:
        subprocess.run(["clang-format", "--style=file", "-i", out_h], check=True, cwd=HERE)
    except (OSError, subprocess.CalledProcessError) as e:
        print("clang-format not applied:", e)
    print("wrote llm_kv_attention.pte and llm_program_refs.h; llama ops from", source)


if __name__ == "__main__":
    main()

"""Exports a tiny Llama with ExecuTorch's own LLM exporter and writes eager
PyTorch references for it (issue 19: the llama:: kernels on a real export).

    /opt/tv/bin/python test/models/llm/export_tiny_llama.py

Writes next to this file:
  tiny_llama_portable.pte  export_llm with use_kv_cache, use_sdpa_with_kv_cache, fp32
  tiny_llama_xnnpack.pte   the same with backend.xnnpack.enabled=True
  step{0,1,2}_tokens.npy, step{0,1,2}_pos.npy, step{0,1,2}_logits.npy
  manifest.txt             what each file is and the exact export command

The model: llama_transformer's ModelArgs with dim 64, 2 layers, 4 heads, 2 KV
heads, vocab 128, max_seq_len 32, default norm eps; weights drawn from a seeded
generator (matrices N(0, 1/fan_in), norm weights 1 + N(0, 0.1^2)), saved as a
checkpoint + params.json in a temporary folder and passed to the exporter.

The references come from eager PyTorch: the same Transformer class built with
use_kv_cache=True (aten SDPA over the module's KV cache, no custom operator),
run step by step: prefill of [1, 5, 9, 17, 33] at input_pos 0, then token 60 at
input_pos 5, then token 61 at input_pos 6 (last-token logits each). They are
checked against the model without a cache run on the whole prefix.

ExecuTorch 1.5.1's AOT custom-op library (libcustom_ops_aot_lib.so) does not
load with torch 2.11 (undefined symbol torch::Library::_def). When that import
fails, the llama:: operators are defined here in Python (schemas as the
library registers them, plain torch math for the values) before the exporter
runs in the same process, so the exporter's custom_ops module finds them and
only adds its Meta kernels. The exported graph is the same: the exporter
decides which operators appear.
"""
import json
import math
import os
import runpy
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))

PARAMS = {
    "dim": 64,
    "n_layers": 2,
    "n_heads": 4,
    "n_kv_heads": 2,
    "vocab_size": 128,
}
MAX_SEQ = 32
BOS_ID = 1
EOS_IDS = [2]
SEED = 19
STEPS = [([1, 5, 9, 17, 33], 0), ([60], 5), ([61], 6)]

# Schemas of the operators the exporter's custom_ops module expects (it adds
# Meta kernels to each), as ExecuTorch's AOT library registers them.
SCHEMAS = [
    "sdpa_with_kv_cache(Tensor query, Tensor key, Tensor value, Tensor(a!) key_cache, "
    "Tensor(b!) value_cache, SymInt start_pos, SymInt seq_len, Tensor? attn_mask=None, "
    "float drpout_p=0.0, bool is_causal=False, float? scale=None) -> Tensor",
    "sdpa_with_kv_cache.out(Tensor query, Tensor key, Tensor value, Tensor(a!) key_cache, "
    "Tensor(b!) value_cache, SymInt start_pos, SymInt seq_len, Tensor? attn_mask=None, "
    "float drpout_p=0.0, bool is_causal=False, float? scale=None, *, Tensor(c!) out) -> Tensor(c!)",
    "custom_sdpa(Tensor query, Tensor key, Tensor value, SymInt start_pos, Tensor? attn_mask=None, "
    "float drpout_p=0.0, bool is_causal=False, float? scale=None) -> Tensor",
    "custom_sdpa.out(Tensor query, Tensor key, Tensor value, SymInt start_pos, "
    "Tensor? attn_mask=None, float drpout_p=0.0, bool is_causal=False, float? scale=None, *, "
    "Tensor(a!) out) -> Tensor(a!)",
    "update_cache(Tensor value, Tensor(a!) cache, SymInt start_pos) -> Tensor",
    "update_cache.out(Tensor value, Tensor(a!) cache, SymInt start_pos, *, Tensor(b!) out) "
    "-> Tensor(b!)",
    "update_cache_with_indices(Tensor value, Tensor(a!) cache, SymInt start_pos, "
    "Tensor indices) -> Tensor",
    "update_cache_with_indices.out(Tensor value, Tensor(a!) cache, SymInt start_pos, "
    "Tensor indices, *, Tensor(b!) out) -> Tensor(b!)",
    "custom_quantized_sdpa(Tensor query, Tensor key, Tensor value, SymInt start_pos, "
    "Tensor? attn_mask=None, float drpout_p=0.0, bool is_causal=False, float? scale=None, "
    "Tensor? q_zero_points=None, Tensor? q_scales=None, Tensor? k_zero_points=None, "
    "Tensor? k_scales=None, Tensor? v_zero_points=None, Tensor? v_scales=None, "
    "bool is_seq_at_dim_2=False) -> Tensor",
    "gated_delta_rule(Tensor query, Tensor key, Tensor value, Tensor decay, Tensor beta, "
    "Tensor initial_state) -> (Tensor, Tensor)",
    "channelwise_gated_delta_rule(Tensor query, Tensor key, Tensor value, Tensor decay, "
    "Tensor beta, Tensor initial_state) -> (Tensor, Tensor)",
    "quantized_moe_ffn(Tensor x, Tensor gate_weight, Tensor expert_bias, Tensor packed_w13, "
    "Tensor packed_w2, int num_activated_experts, int num_experts, int hidden_dim, int dim, "
    "int group_size, int weight_nbit, str score_func, float route_scale) -> Tensor",
    "fast_hadamard_transform(Tensor mat) -> Tensor",
]


def attention(q, k, v, start_pos, attn_mask=None, is_causal=False, scale=None):
    """q [B, S, Hq, D] over cache positions 0 .. start_pos + S - 1 of k, v
    [B, max_S, Hkv, D]; the result is [B, S, Hq, D]."""
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


def define_llama_ops():
    """Makes `from executorch.extension.llm.custom_ops import custom_ops`
    work: the official AOT library when it loads, else Python definitions."""
    try:
        import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401

        return "ExecuTorch's AOT library"
    except Exception as e:  # the library fails to load with this torch
        failure = f"{type(e).__name__}: {e}"
    from torch.library import Library

    lib = Library("llama", "FRAGMENT")
    define_llama_ops.lib = lib  # kept alive with the definitions
    for schema in SCHEMAS:
        lib.define(schema)

    def update(value, cache, start_pos):
        cache[:, start_pos:start_pos + value.shape[1]] = value

    def _update_cache(value, cache, start_pos):
        update(value, cache, start_pos)
        return torch.empty((1,), dtype=value.dtype)

    def _update_cache_out(value, cache, start_pos, *, out):
        update(value, cache, start_pos)
        return out

    def _custom_sdpa(q, k, v, start_pos, attn_mask=None, drpout_p=0.0, is_causal=False,
                     scale=None):
        return attention(q, k, v, start_pos, attn_mask, is_causal, scale)

    def _custom_sdpa_out(q, k, v, start_pos, attn_mask=None, drpout_p=0.0, is_causal=False,
                         scale=None, *, out):
        out.copy_(attention(q, k, v, start_pos, attn_mask, is_causal, scale))
        return out

    def _sdpa_kv(q, k, v, k_cache, v_cache, start_pos, seq_len, attn_mask=None, drpout_p=0.0,
                 is_causal=False, scale=None):
        update(k, k_cache, start_pos)
        update(v, v_cache, start_pos)
        return attention(q, k_cache, v_cache, start_pos, attn_mask, is_causal, scale)

    def _sdpa_kv_out(q, k, v, k_cache, v_cache, start_pos, seq_len, attn_mask=None,
                     drpout_p=0.0, is_causal=False, scale=None, *, out):
        out.copy_(_sdpa_kv(q, k, v, k_cache, v_cache, start_pos, seq_len, attn_mask, drpout_p,
                           is_causal, scale))
        return out

    for name, fn in [("update_cache", _update_cache), ("update_cache.out", _update_cache_out),
                     ("custom_sdpa", _custom_sdpa), ("custom_sdpa.out", _custom_sdpa_out),
                     ("sdpa_with_kv_cache", _sdpa_kv),
                     ("sdpa_with_kv_cache.out", _sdpa_kv_out)]:
        lib.impl(name, fn, "CompositeExplicitAutograd")
    import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401,E402

    return "Python definitions (the AOT library failed: " + failure + ")"


def model_args(params=None, **extra):
    from executorch.examples.models.llama.model_args import ModelArgs

    return ModelArgs(max_seq_len=MAX_SEQ, max_context_len=MAX_SEQ, **(params or PARAMS), **extra)


def write_checkpoint(folder, params=None, stem="tiny_llama"):
    """Seeded weights for PARAMS (or `params`): `stem`.pth and params.json in
    `folder` (params_`stem`.json for another stem)."""
    from executorch.examples.models.llama.llama_transformer import construct_transformer

    params = params or PARAMS
    model = construct_transformer(model_args(params))
    gen = torch.Generator().manual_seed(SEED)
    state = {}
    for name, t in model.state_dict().items():
        if t.dim() == 1:  # RMSNorm weights
            state[name] = 1.0 + 0.1 * torch.randn(t.shape, generator=gen)
        elif name == "tok_embeddings.weight":
            state[name] = torch.randn(t.shape, generator=gen)
        else:  # [out, in] linear weights
            state[name] = torch.randn(t.shape, generator=gen) / math.sqrt(t.shape[1])
    ckpt = os.path.join(folder, f"{stem}.pth")
    path = os.path.join(folder, "params.json" if stem == "tiny_llama" else f"params_{stem}.json")
    torch.save(state, ckpt)
    with open(path, "w") as f:
        json.dump(params, f)
    return ckpt, path, state


def exporter_args(ckpt, params, output, xnnpack):
    meta = json.dumps({"get_bos_id": BOS_ID, "get_eos_ids": EOS_IDS}).replace(" ", "")
    args = [
        f"base.params={params}", f"base.checkpoint={ckpt}", "base.model_class=llama3",
        "model.use_kv_cache=True", "model.use_sdpa_with_kv_cache=True",
        "model.dtype_override=fp32", f"export.max_seq_length={MAX_SEQ}",
        f"export.max_context_length={MAX_SEQ}", f"export.output_name={output}",
        f"base.metadata='{meta}'"
    ]
    if xnnpack:
        args.append("backend.xnnpack.enabled=True")
    return args


def run_exporter(args):
    """Runs `python -m executorch.extension.llm.export.export_llm ARGS` in
    this process, after the llama:: operators are defined."""
    print("llama:: operators from", define_llama_ops(), flush=True)
    sys.argv = ["export_llm"] + args
    runpy.run_module("executorch.extension.llm.export.export_llm", run_name="__main__")


def eager_references(state):
    """Last-token logits of the three steps from the KV-cache eager model,
    checked against the cache-free model on the whole prefix."""
    from executorch.examples.models.llama.llama_transformer import construct_transformer

    cached = construct_transformer(model_args(use_kv_cache=True, enable_dynamic_shape=True))
    cached.load_state_dict(state, strict=False)
    cached.eval()
    full = construct_transformer(model_args())
    full.load_state_dict(state, strict=False)
    full.eval()
    for m in (cached, full):
        for name, t in m.state_dict().items():
            if name in state:
                assert torch.equal(t, state[name]), name
    out = []
    prefix = []
    with torch.no_grad():
        for tokens, pos in STEPS:
            tok = torch.tensor([tokens], dtype=torch.long)
            ipos = torch.tensor([pos], dtype=torch.long)
            logits = cached(tok, {"input_pos": ipos})
            if isinstance(logits, tuple):
                logits = logits[0]
            logits = logits.reshape(-1, PARAMS["vocab_size"])[-1:].clone()
            prefix += tokens
            ref = full(torch.tensor([prefix], dtype=torch.long))
            if isinstance(ref, tuple):
                ref = ref[0]
            ref = ref.reshape(-1, PARAMS["vocab_size"])[-1:]
            diff = (logits - ref).abs().max().item()
            print(f"step at input_pos {pos}: cached vs full max |diff| {diff:.3g}")
            assert diff < 1e-5, diff
            out.append((tok.numpy(), ipos.numpy(), logits.numpy().astype(np.float32)))
    return out


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--run-exporter":
        run_exporter(sys.argv[2:])
        return
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        ckpt, params, state = write_checkpoint(tmp)
        commands = []
        for flavour, xnn in (("portable", False), ("xnnpack", True)):
            out = os.path.join(HERE, f"tiny_llama_{flavour}.pte")
            args = exporter_args(ckpt, params, out, xnn)
            cmd = [sys.executable, os.path.abspath(__file__), "--run-exporter"] + args
            subprocess.run(cmd, check=True, cwd=tmp)
            shown = "python -m executorch.extension.llm.export.export_llm " + " ".join(
                a if "'" not in a else '"' + a.replace('"', '\\"') + '"' for a in args)
            commands.append((flavour, shown.replace(tmp, "$TMP").replace(HERE + "/", ""),
                             os.path.getsize(out)))
        steps = eager_references(state)
    lines = [
        "Tiny Llama exported by ExecuTorch 1.5.1's export_llm (test/models/llm/export_tiny_llama.py).",
        f"Model: ModelArgs {PARAMS}, max_seq_len {MAX_SEQ}, max_context_len {MAX_SEQ}, seed {SEED}.",
        f"Metadata: get_bos_id {BOS_ID}, get_eos_ids {EOS_IDS}.",
        "The exporter runs in the script's process (runpy) after the llama:: operators are",
        "defined: ExecuTorch's AOT library when it loads, else Python definitions (with torch",
        "2.11 it fails: undefined symbol torch::Library::_def, and the plain command stops there).",
        "Checkpoint and params.json are written to a temporary folder ($TMP) and removed.",
        "The other exporter flavours and the official runtime's references: manifest_flavours.txt.",
    ]
    for flavour, shown, size in commands:
        lines.append(f"tiny_llama_{flavour}.pte ({size} bytes): {shown}")
    for i, ((tokens, pos), (tok, ipos, logits)) in enumerate(zip(STEPS, steps)):
        np.save(os.path.join(HERE, f"step{i}_tokens.npy"), tok)
        np.save(os.path.join(HERE, f"step{i}_pos.npy"), ipos)
        np.save(os.path.join(HERE, f"step{i}_logits.npy"), logits)
        lines.append(f"step{i}: forward(tokens {tokens} Long{list(tok.shape)}, input_pos [{pos}]) "
                     f"-> step{i}_logits.npy Float{list(logits.shape)}, last-token logits of the "
                     f"eager KV-cache model after steps 0..{i} in order")
    with open(os.path.join(HERE, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

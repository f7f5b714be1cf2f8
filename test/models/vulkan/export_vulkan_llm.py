#!/usr/bin/env python3
"""Export the Vulkan delegate's LLM fixtures with the OFFICIAL ExecuTorch toolchain (issue 21).

Cases (files next to this script):

* `q4gsw_mlp`: an MLP whose linear layers torchao quantizes to 4-bit weights,
  group-wise symmetric (`IntxWeightOnlyConfig(weight_dtype=torch.int4,
  granularity=PerGroup(12))`, as the official Vulkan tests do), lowered with
  `VulkanPartitioner()`: the payload calls `et_vk.linear_q4gsw`.
* `dq8ca_q4gsw_mlp`: the same MLP under torchao's 8da4w
  (`Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4,
  weight_granularity=PerGroup(12))`): `torchao.choose_qparams_affine` and
  `et_vk.linear_dq8ca_q4gsw`.
* `q8ta_mlp`: an MLP through pt2e with the XNNPACK quantizer's static int8
  config (as the official Vulkan pt2e linear test): the payload calls
  `quantized_decomposed.quantize_per_tensor`, `et_vk.q8ta_linear` (int8 in and
  out, the ReLU fused) and `dequantize_per_tensor`.
  The references are PyTorch eager of the quantized module (fp32);
  tolerance 2e-3 of the output's scale.
* `q8ta_q8csw_mlp`: two linear layers written out as the quantize-dequantize
  pattern (`quantize_per_tensor` and `dequantize_per_tensor` of the input with
  a fixed scale and a non-zero zero point, `dequantize_per_channel` of an int8
  weight buffer) whose outputs stay float: the payload calls
  `et_vk.linear_q8ta_q8csw` (int8 in, fp32 out). Reference: PyTorch eager of
  the same module.
* `tiny_llama_vulkan.pte`: the tiny Llama of test/models/llm (export_tiny_llama.py's
  seeded checkpoint: dim 64, 2 layers, 4 heads, 2 KV heads, vocab 128, context 32)
  exported by `python -m executorch.extension.llm.export.export_llm` with
  `backend.vulkan.enabled=True model.enable_dynamic_shape=False` (tokens Long[1, 1]:
  prefill token by token; the KV caches are constants of the payload that its
  sdpa_with_kv_cache updates in place).
* `tiny_llama_vulkan_dynamic.pte`: the same with the exporter's default
  `enable_dynamic_shape=True` (tokens Long[1, S], S in 1..max_seq_len: a prefill
  of several tokens per call). Same reference. Reference: the official runtime
  (executorch.runtime, torch 2.13 environment) running test/models/llm/tiny_llama_portable.pte
  (the NON-Vulkan export of the same checkpoint).
* `tiny_llama_vulkan_no_kv.pte`: the exporter's defaults (no KV cache, dynamic
  tokens Long[1, S]: every call runs the whole sequence), reference: the official
  runtime on test/models/llm/tiny_llama_no_kv.pte, one growing prefix per call.
* `tiny_llama_vulkan_8da4w.pte`: the same with `quantization.qmode=8da4w
  quantization.group_size=32` (linear_dq8ca_q4gsw); reference: PyTorch eager of
  the exporter's own quantized model (the official runtime cannot be the
  reference here: the same quantization lowered to XNNPACK keeps the weight
  scales in bf16 and lands 1-2% of the logits' scale away from eager).
* `tiny_llama_vulkan_8da4w_emb4.pte`: that and `quantization.embedding_quantize='4,32'`
  (et_vk.embedding_q4gsw); reference: PyTorch eager likewise.
  For each: `<name>/tokens.npy` Long[T] (the runner's prompt ids, then a few
  fixed ids), `<name>/logits.npy` Float[T, 128] (the reference's logits after
  token t at position t, one token per call), `<name>/greedy.npy` (the
  reference's greedy continuation of the prompt, 16 tokens at most, stopping
  after EOS).

Run (from the repository root)::

    /opt/tv213/bin/python test/models/vulkan/export_vulkan_llm.py            # all
    /opt/tv213/bin/python test/models/vulkan/export_vulkan_llm.py q4gsw_mlp  # a subset

Writes manifest_llm.txt (the manifest.txt line format, for the MLP cases) and
OPS_LLM.md (the operators each Vulkan payload calls, in chain order).
"""
import os
import subprocess
import sys
import tempfile
from typing import Dict, List

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
LLM = os.path.join(HERE, "..", "llm")
sys.path.insert(0, HERE)
sys.path.insert(0, LLM)
import export_vulkan_models as common  # noqa: E402

GROUP = 12


class QMlp(torch.nn.Module):
    """K = 48 and 36 (36 is padded to 40 in the packed weights), N = 36 and 20
    (the partitioner's own pass fails on an N that is not a multiple of 4), a
    bias on the first layer only."""

    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(48, 36)
        self.l2 = torch.nn.Linear(36, 20, bias=False)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x)))


def quantized_mlp(dynamic_activations: bool) -> torch.nn.Module:
    from torchao.quantization.granularity import PerGroup
    from torchao.quantization.quant_api import (
        Int8DynamicActivationIntxWeightConfig,
        IntxWeightOnlyConfig,
        quantize_,
    )
    from torchao.utils import unwrap_tensor_subclass

    m = QMlp().eval()
    if dynamic_activations:
        cfg = Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4,
                                                    weight_granularity=PerGroup(GROUP))
    else:
        cfg = IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=PerGroup(GROUP))
    quantize_(m, cfg)
    unwrap_tensor_subclass(m)
    return m


class Frozen(torch.nn.Module):
    """A converted pt2e module (its train()/eval() raise) behind a plain
    module for export_case."""

    def __init__(self, gm):
        super().__init__()
        self.gm = gm

    def forward(self, x):
        return self.gm(x)

    def train(self, mode=True):
        return self


class Mlp8(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(48, 32)
        self.l2 = torch.nn.Linear(32, 16)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x)))


def static_int8_mlp() -> torch.nn.Module:
    """Mlp8 through pt2e with the XNNPACK quantizer's static per-channel
    symmetric config (as the official Vulkan test of a pt2e linear sequence):
    int8 activations with per-tensor parameters from calibration, int8
    per-channel weights."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    m = Mlp8().eval()
    q = XNNPACKQuantizer()
    q.set_global(get_symmetric_quantization_config(is_per_channel=True, is_dynamic=False))
    gm = prepare_pt2e(torch.export.export(m, (torch.randn(4, 48),), strict=True).module(), q)
    for _ in range(4):  # calibration
        gm(torch.randn(4, 48))
    return Frozen(convert_pt2e(gm))


class Q8Linear(torch.nn.Module):
    """F.linear on the quantize-dequantize of its input (int8, per-tensor
    scale and zero point) and of an int8 weight with a scale per output
    channel; the output is not quantized (the partitioner's
    linear_q8ta_q8csw pattern)."""

    def __init__(self, k: int, n: int, scale: float, zero_point: int, bias: bool):
        super().__init__()
        w = torch.randn(n, k) * 0.2
        w_scale = w.abs().amax(dim=1) / 127
        self.register_buffer("w_q", torch.clamp(torch.round(w / w_scale[:, None]), -127,
                                                127).to(torch.int8))
        self.register_buffer("w_scale", w_scale)
        self.register_buffer("w_zp", torch.zeros(n, dtype=torch.int64))
        self.bias = torch.nn.Parameter(torch.randn(n) * 0.1) if bias else None
        self.scale = scale
        self.zero_point = zero_point

    def forward(self, x):
        import torchao.quantization.pt2e  # noqa: F401 (quantized_decomposed ops)
        qd = torch.ops.quantized_decomposed
        xq = qd.quantize_per_tensor(x, self.scale, self.zero_point, -128, 127, torch.int8)
        xd = qd.dequantize_per_tensor(xq, self.scale, self.zero_point, -128, 127, torch.int8)
        w = qd.dequantize_per_channel(self.w_q, self.w_scale, self.w_zp, 0, -127, 127, torch.int8)
        return torch.nn.functional.linear(xd, w, self.bias)


class Q8Mlp(torch.nn.Module):
    """K = 48 then 36, N = 36 then 20 (its scales and sums padded to 24 in
    the payload), a bias on the first layer only, activation zero points
    -9 and 3. tanh between them (not ReLU, which the partitioner would fuse
    with the first layer and the second quantize into et_vk.q8ta_linear)."""

    def __init__(self):
        super().__init__()
        self.l1 = Q8Linear(48, 36, 0.025, -9, True)
        self.l2 = Q8Linear(36, 20, 0.008, 3, False)

    def forward(self, x):
        return self.l2(torch.tanh(self.l1(x)))


MLP_CASES = {
    "q4gsw_mlp": (lambda: quantized_mlp(False), lambda: (torch.randn(2, 3, 48),)),
    "dq8ca_q4gsw_mlp": (lambda: quantized_mlp(True), lambda: (torch.randn(5, 48),)),
    "q8ta_mlp": (static_int8_mlp, lambda: (torch.randn(4, 48),)),
    "q8ta_q8csw_mlp": (Q8Mlp, lambda: (torch.randn(2, 3, 48),)),
}

HEADER = """# Test manifest for the Vulkan LLM fixtures in this directory (generated by export_vulkan_llm.py).
# Same line format as manifest.txt:
#   pte=<file> method=<name> inputs=<paths|-> expected=<paths|-> executions=<N> rtol=<r> atol=<a>
# Expected outputs: PyTorch eager of the torchao- or pt2e-quantized module (fp32);
# atol = 2e-3 * max|expected| (rounded up to two digits), rtol = 0.
# The tiny_llama_vulkan*.pte programs are checked by their own test (<name>/tokens.npy, logits.npy,
# greedy.npy).
"""


# Exporter arguments after the common ones (checkpoint, params, context).
VULKAN = ["backend.vulkan.enabled=True", "model.enable_dynamic_shape=False"]
# The exporter's default: tokens Long[1, S] with S dynamic (prefill in one call).
VULKAN_DYNAMIC = ["backend.vulkan.enabled=True"]
NO_KV = ["backend.vulkan.enabled=True"]  # with no model.use_kv_cache
Q8DA4W = ["quantization.qmode=8da4w", "quantization.group_size=32"]

# name -> (the Vulkan export's arguments, the reference: a committed non-Vulkan
# .pte of the same checkpoint run by the official runtime, or "eager")
LLAMAS = {
    "tiny_llama_vulkan": (VULKAN, os.path.join(LLM, "tiny_llama_portable.pte")),
    # The default dynamic-shape program (prefill of several tokens per call);
    # its reference rows are the same one-token steps of the official runtime
    # (the test compares a prefill's last-token logits with the row of its
    # last token).
    "tiny_llama_vulkan_dynamic": (VULKAN_DYNAMIC, os.path.join(LLM, "tiny_llama_portable.pte")),
    # The exporter's defaults otherwise too: no KV cache (each call runs the
    # whole sequence; causal mask from a bool constant: where, eq, logical_not,
    # several delegates with SymInts between them). Reference: the official
    # runtime on the non-Vulkan no-KV export, one prefix per call.
    "tiny_llama_vulkan_no_kv": (NO_KV, os.path.join(LLM, "tiny_llama_no_kv.pte")),
    # 8da4w linear layers (linear_dq8ca_q4gsw). Reference: PyTorch eager of the
    # exporter's own quantized model (_prepare_for_llama_export with the same
    # arguments, before lowering). The same quantization lowered to XNNPACK is
    # no reference at 2e-3: XNNPACK keeps the 4-bit groups' scales in bf16, and
    # its logits differ from eager by 1-2% of their scale (measured).
    "tiny_llama_vulkan_8da4w": (VULKAN + Q8DA4W, "eager"),
    # And a 4-bit group-32 embedding table (et_vk.embedding_q4gsw).
    "tiny_llama_vulkan_8da4w_emb4": (VULKAN + Q8DA4W + ["quantization.embedding_quantize='4,32'"],
                                     "eager"),
}


def eager_stepper(args: List[str]):
    """The exporter's model for `args` (checkpoint, quantization, KV cache),
    in eager mode: step(token, pos) -> Float[128] last-token logits."""
    from executorch.examples.models.llama.export_llama_lib import _prepare_for_llama_export
    from executorch.extension.llm.export.config.llm_config import LlmConfig
    from omegaconf import OmegaConf

    # base.metadata only feeds the program's constant methods.
    dotlist = [a for a in args if not a.startswith("base.metadata")]
    cfg = OmegaConf.to_object(
        OmegaConf.merge(OmegaConf.structured(LlmConfig), OmegaConf.from_dotlist(dotlist)))
    model = _prepare_for_llama_export(cfg).model.eval()

    def step(token, pos):
        with torch.no_grad():
            out = model(torch.tensor([[token]]), {"input_pos": torch.tensor([pos])})
        out = out[0] if isinstance(out, tuple) else out
        return out.float().reshape(-1)[-128:].clone()

    return step


def run_export_llm(args: List[str], tmp: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "executorch.extension.llm.export.export_llm"] + args, cwd=tmp,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if run.returncode != 0:
        print(run.stdout[-3000:])
        raise SystemExit("export_llm failed")


def export_llama(name: str) -> List[str]:
    import export_llm_flavours as fl
    import export_tiny_llama as base
    # The llama:: custom operators and quantized kernels the reference
    # program calls (else its load fails).
    import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401
    import executorch.kernels.quantized  # noqa: F401
    from executorch.runtime import Runtime

    vulkan_args, ref = LLAMAS[name]
    out = os.path.join(HERE, f"{name}.pte")
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        no_kv = vulkan_args is NO_KV
        common_args = (fl.common_args(*base.write_checkpoint(tmp)[:2]) +
                       ([] if no_kv else fl.KV_SDPA) + fl.FP32)
        run_export_llm(common_args + vulkan_args + [
            f"export.output_dir={tmp}", f"export.output_name={out}"], tmp)

        def reference():
            """A fresh reference (empty KV cache): step(token, pos) -> logits."""
            if ref == "eager":
                return eager_stepper(common_args + vulkan_args)
            method = Runtime.get().load_program(ref).load_method("forward")
            seen = []

            def step(token, pos):
                if no_kv:  # the whole sequence so far, every call
                    del seen[pos:]
                    seen.append(token)
                    logits = method.execute([torch.tensor([seen])])[0]
                else:
                    logits = method.execute([torch.tensor([[token]]), torch.tensor([pos])])[0]
                return logits.float().reshape(-1)[-128:].clone()

            return step

        step = reference()
        # The token sequence: the runner's prompt ids, then a few fixed ids.
        prompt = [int(t) for t in np.load(os.path.join(LLM, "refs", "prompt_ids.npy"))]
        tokens = prompt + [17, 42, 99, 5]
        rows = [step(t, pos) for pos, t in enumerate(tokens)]
        # Greedy continuation of the prompt, one token per call, from an empty cache.
        step = reference()
        pos, greedy = 0, []
        for t in prompt[:-1]:
            step(t, pos)
            pos += 1
        feed = prompt[-1]
        while len(greedy) < 16:
            feed = int(step(feed, pos).argmax())
            pos += 1
            greedy.append(feed)
            if feed in base.EOS_IDS:
                break
    np.save(os.path.join(d, "tokens.npy"), np.array(tokens, dtype=np.int64))
    np.save(os.path.join(d, "logits.npy"), torch.stack(rows).numpy().astype(np.float32))
    np.save(os.path.join(d, "greedy.npy"), np.array(greedy, dtype=np.int64))
    with open(out, "rb") as f:
        ops = common.vulkan_ops(f.read())
    md = [f"## {name}", ""]
    for k, chain in enumerate(ops):
        md.append(f"delegate {k}: " + ", ".join(chain))
    md.append("")
    return md


def main(argv: List[str]) -> None:
    names = argv or list(MLP_CASES) + list(LLAMAS)
    lines: Dict[str, str] = {}
    mds: Dict[str, List[str]] = {}
    for n in names:
        if n in LLAMAS:
            mds[n] = export_llama(n)
        else:
            lines[n], mds[n] = common.export_case(n, *MLP_CASES[n])
        print("\n".join(mds[n]))
    # Keep the other cases' text when only a subset was exported.
    manifest = os.path.join(HERE, "manifest_llm.txt")
    old: Dict[str, str] = {}
    if os.path.exists(manifest):
        for part in open(manifest).read().split("\n## case ")[1:]:
            head, body = part.split("\n", 1)
            old[head.strip()] = body.strip()
    with open(manifest, "w") as f:
        f.write(HEADER)
        for n in MLP_CASES:
            body = lines.get(n) or old.get(n)
            if body:
                f.write(f"\n## case {n}\n{body}\n")
    ops_md = os.path.join(HERE, "OPS_LLM.md")
    old_md: Dict[str, str] = {}
    if os.path.exists(ops_md):
        for part in open(ops_md).read().split("\n## ")[1:]:
            old_md[part.split("\n", 1)[0].strip()] = "## " + part.strip() + "\n"
    with open(ops_md, "w") as f:
        f.write("# Operators in each Vulkan LLM payload (generated by export_vulkan_llm.py)\n\n")
        for n in list(MLP_CASES) + list(LLAMAS):
            if n in mds:
                f.write("\n".join(mds[n]) + "\n")
            elif n in old_md:
                f.write(old_md[n] + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])

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
* `tiny_llama_vulkan.pte`: the tiny Llama of test/models/llm (export_tiny_llama.py's
  seeded checkpoint: dim 64, 2 layers, 4 heads, 2 KV heads, vocab 128, context 32)
  exported by `python -m executorch.extension.llm.export.export_llm` with
  `backend.vulkan.enabled=True model.enable_dynamic_shape=False` (tokens Long[1, 1]:
  prefill token by token; the KV caches are constants of the payload that its
  sdpa_with_kv_cache updates in place). Reference: the official runtime
  (executorch.runtime, torch 2.13 environment) running test/models/llm/tiny_llama_portable.pte
  (the NON-Vulkan export of the same checkpoint) on the same tokens, one token per call:
  `tiny_llama_vulkan/tokens.npy` Long[T], `tiny_llama_vulkan/logits.npy` Float[T, 128]
  (logits after token t at position t).

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


MLP_CASES = {
    "q4gsw_mlp": (lambda: quantized_mlp(False), lambda: (torch.randn(2, 3, 48),)),
    "dq8ca_q4gsw_mlp": (lambda: quantized_mlp(True), lambda: (torch.randn(5, 48),)),
    "q8ta_mlp": (static_int8_mlp, lambda: (torch.randn(4, 48),)),
}

HEADER = """# Test manifest for the Vulkan LLM fixtures in this directory (generated by export_vulkan_llm.py).
# Same line format as manifest.txt:
#   pte=<file> method=<name> inputs=<paths|-> expected=<paths|-> executions=<N> rtol=<r> atol=<a>
# Expected outputs: PyTorch eager of the torchao- or pt2e-quantized module (fp32);
# atol = 2e-3 * max|expected| (rounded up to two digits), rtol = 0.
# tiny_llama_vulkan.pte is checked by its own test (tiny_llama_vulkan/tokens.npy, logits.npy).
"""


def export_llama() -> List[str]:
    import export_llm_flavours as fl
    import export_tiny_llama as base
    # The llama:: custom operators the portable program calls (else its load fails).
    import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401
    import executorch.kernels.quantized  # noqa: F401
    from executorch.runtime import Runtime

    out = os.path.join(HERE, "tiny_llama_vulkan.pte")
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = base.write_checkpoint(tmp)[:2]
        args = fl.common_args(*ckpt) + fl.KV_SDPA + fl.FP32 + [
            "backend.vulkan.enabled=True", "model.enable_dynamic_shape=False",
            f"export.output_dir={tmp}", f"export.output_name={out}"
        ]
        run = subprocess.run(
            [sys.executable, "-m", "executorch.extension.llm.export.export_llm"] + args, cwd=tmp,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if run.returncode != 0:
            print(run.stdout[-3000:])
            raise SystemExit("export_llm failed")
    # The token sequence: the runner's prompt ids, then a few fixed ids.
    prompt = [int(t) for t in np.load(os.path.join(LLM, "refs", "prompt_ids.npy"))]
    tokens = prompt + [17, 42, 99, 5]
    method = Runtime.get().load_program(os.path.join(LLM, "tiny_llama_portable.pte")).load_method(
        "forward")
    rows = []
    for pos, t in enumerate(tokens):
        logits = method.execute([torch.tensor([[t]]), torch.tensor([pos])])[0]
        rows.append(logits.float().reshape(-1)[-128:].clone())
    d = os.path.join(HERE, "tiny_llama_vulkan")
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "tokens.npy"), np.array(tokens, dtype=np.int64))
    np.save(os.path.join(d, "logits.npy"), torch.stack(rows).numpy().astype(np.float32))
    with open(out, "rb") as f:
        ops = common.vulkan_ops(f.read())
    md = ["## tiny_llama_vulkan", ""]
    for k, chain in enumerate(ops):
        md.append(f"delegate {k}: " + ", ".join(chain))
    md.append("")
    return md


def main(argv: List[str]) -> None:
    names = argv or list(MLP_CASES) + ["tiny_llama_vulkan"]
    lines: Dict[str, str] = {}
    mds: Dict[str, List[str]] = {}
    for n in names:
        if n == "tiny_llama_vulkan":
            mds[n] = export_llama()
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
        for n in list(MLP_CASES) + ["tiny_llama_vulkan"]:
            if n in mds:
                f.write("\n".join(mds[n]) + "\n")
            elif n in old_md:
                f.write(old_md[n] + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])

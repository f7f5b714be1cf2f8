#!/usr/bin/env python3
"""Export the benchmark models (full-size, random weights, seeded) in the
forms bench/compare.py times (the issue-22 benchmark set):

* `<model>.pte`          portable only (no delegate): what our optimized kernels run
* `<model>_xnnpack.pte`  lowered to XNNPACK with the official flow
* `<model>_vulkan.pte`   lowered with the official VulkanPartitioner (our Vulkan delegate)
* `<model>.onnx`         for ONNX Runtime

    /opt/tv/bin/python bench/export_bench_models.py                 # all models, all forms
    /opt/tv/bin/python bench/export_bench_models.py mobilenet_v2    # a subset
    /opt/tv/bin/python bench/export_bench_models.py --fp16 mobilenet_v2
    /opt/tv/bin/python bench/export_bench_models.py --forms vulkan  # only <model>_vulkan.pte

`--fp16` writes instead the model cast to fp16 (`.to(torch.float16)`) and
lowered to XNNPACK: `<model>_xnnpack_fp16.pte`, `<model>_in_fp16.npy` (the
input in fp16) and `<model>_out_fp16.npy` (PyTorch eager in fp16, stored as
float32), for `compare.py --fp16`. Its batch norms first get running
statistics from a few random batches (the default ones let the activations
of these random-weight networks shrink to ~1e-9 at the output, which is 0 in
fp16 and would make the output check empty); the operators, so the time,
are those of the fp32 model.

Files go to bench/models/ (git-ignored: they are 10-50 MB each and are
re-made byte-identically by this script). Also writes `<model>_in.npy` and
`<model>_out.npy` (PyTorch eager output) so compare.py can check that every
runtime it times computes the same thing.

Needs /opt/tv (torch 2.11, executorch 1.5.1, torchvision, torchao, onnx,
onnxruntime); see test/models/xnnpack/export_xnnpack.py for the venv.

The models added for issue 22 (every one but the first four) have their batch-norm
statistics calibrated: random weights with the default statistics (mean 0, variance 1)
let activations grow or vanish layer after layer, so the output would say little about
a runtime's numerics. `calibrate` runs a few random batches in training mode and keeps
their statistics. The first four are left as they were, so their files stay the same.

Quantized variants (`<base>_int8`: static PT2E quantization with XNNPACKQuantizer,
per-channel symmetric weights, calibrated on random inputs; `<base>_dq`: dynamic int8
linear layers): `<m>_xnnpack.pte` lowers the quantized graph to XNNPACK, `<m>.pte` keeps
it as quantize / dequantize operators around fp32 ones (what a portable runtime runs),
`<m>_out.npy` is the quantized model's eager output, and `<m>.onnx` is the fp32 ONNX
model quantized by ONNX Runtime's own tools (QDQ static with the same calibration
inputs, or quantize_dynamic), which is how an ONNX Runtime user gets an int8 model.
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "models")


class SmallTransformer(nn.Module):
    """A BERT-mini-sized encoder: 4 layers, d_model 256, 4 heads, ffn 1024, seq 128."""

    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(
            d_model=256, nhead=4, dim_feedforward=1024, dropout=0.0, batch_first=True,
            activation="gelu")
        self.encoder = nn.TransformerEncoder(layer, num_layers=4, enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


class DecoderBlock(nn.Module):
    """A nanoGPT block: pre-norm causal self-attention and a GELU MLP."""

    def __init__(self, d, heads, seq):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)
        # Additive causal mask: 0 on and below the diagonal, -inf above it.
        self.register_buffer("mask", torch.full((seq, seq), float("-inf")).triu(1))

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, h, d // h).transpose(1, 2)
        k = k.view(b, t, h, d // h).transpose(1, 2)
        v = v.view(b, t, h, d // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (d // h) ** 0.5) + self.mask[:t, :t]
        y = torch.softmax(att, dim=-1) @ v
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.out(torch.nn.functional.gelu(self.fc(self.ln2(x))))


class DecoderLM(nn.Module):
    """nanoGPT-style character-level decoder: vocab 256, 4 layers, d 128, 4 heads, 64 tokens;
    the input is int64 token ids, the output the logits of every position."""

    def __init__(self, vocab=256, d=128, heads=4, layers=4, seq=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(1, seq, d) * 0.02)
        self.blocks = nn.Sequential(*[DecoderBlock(d, heads, seq) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos[:, : idx.shape[1]]
        return self.head(self.ln(self.blocks(x)))


class Wav2LetterLike(nn.Module):
    """A wav2letter-shaped stack of 1-D convolutions with ReLU over 40 mel features x 200
    frames: a strided 11-wide input layer, seven 7-wide 250-channel layers, an 11-wide
    widening layer to 512, a 1x1 512 layer and a 1x1 layer to 29 characters."""

    def __init__(self):
        super().__init__()
        layers = [nn.Conv1d(40, 250, 11, stride=2, padding=5), nn.ReLU()]
        for _ in range(7):
            layers += [nn.Conv1d(250, 250, 7, padding=3), nn.ReLU()]
        layers += [nn.Conv1d(250, 512, 11, padding=5), nn.ReLU(),
                   nn.Conv1d(512, 512, 1), nn.ReLU(), nn.Conv1d(512, 29, 1)]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def calibrate(model, shape, batches=2):
    """Sets every batch norm's running statistics to those of random N(0, 1) inputs of
    `shape` (batch 4) run through the model in training mode."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return model
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None  # a plain average over the calibration batches
    model.train()
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn((4,) + tuple(shape[1:]), generator=g))
    return model.eval()


IMAGE = (1, 3, 224, 224)


def build(name):
    import torchvision.models as tvm
    torch.manual_seed(0)
    if name == "mobilenet_v2":
        return tvm.mobilenet_v2(weights=None), (torch.randn(1, 3, 224, 224),)
    if name == "resnet18":
        return tvm.resnet18(weights=None), (torch.randn(1, 3, 224, 224),)
    if name == "efficientnet_b0":
        return tvm.efficientnet_b0(weights=None), (torch.randn(1, 3, 224, 224),)
    if name == "transformer":
        return SmallTransformer(), (torch.randn(1, 128, 256),)
    vision = {
        "mobilenet_v3_small": tvm.mobilenet_v3_small,
        "mobilenet_v3_large": tvm.mobilenet_v3_large,
        "resnet50": tvm.resnet50,
        "regnet_y_400mf": tvm.regnet_y_400mf,
        "densenet121": tvm.densenet121,
    }
    if name in vision:
        model = vision[name](weights=None)
        x = torch.randn(IMAGE)
        return calibrate(model, IMAGE), (x,)
    if name == "vit_small":
        # 224x224 in 16x16 patches (197 tokens), 4 layers, d 192, 3 heads, MLP 768.
        model = tvm.VisionTransformer(image_size=224, patch_size=16, num_layers=4, num_heads=3,
                                      hidden_dim=192, mlp_dim=768)
        # torchvision zero-initialises the classifier; random weights make the output useful.
        nn.init.normal_(model.heads.head.weight, std=0.02)
        return model, (torch.randn(IMAGE),)
    if name == "decoder_lm":
        return DecoderLM(), (torch.randint(0, 256, (1, 64), dtype=torch.int64),)
    if name == "wav2letter":
        return Wav2LetterLike(), (torch.randn(1, 40, 200),)
    raise SystemExit("unknown model " + name)


# Quantized variants: name -> (fp32 base model, "static" or "dynamic").
QUANTIZED = {
    "mobilenet_v2_int8": ("mobilenet_v2", "static"),
    "mobilenet_v2_dq": ("mobilenet_v2", "dynamic"),
    "transformer_int8": ("transformer", "static"),
    "transformer_dq": ("transformer", "dynamic"),
}

MODELS = ["mobilenet_v2", "resnet18", "efficientnet_b0", "transformer", "mobilenet_v3_small",
          "mobilenet_v3_large", "resnet50", "regnet_y_400mf", "densenet121", "vit_small",
          "decoder_lm", "wav2letter"] + list(QUANTIZED)


def quantize_pt2e(model, args, mode):
    """PT2E quantization with XNNPACKQuantizer (per-channel symmetric int8 weights); static
    calibrates activations on 4 random inputs shaped like `args`."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    dynamic = mode == "dynamic"
    quantizer = XNNPACKQuantizer().set_global(
        get_symmetric_quantization_config(is_per_channel=True, is_dynamic=dynamic))
    graph = torch.export.export(model, args).module()
    prepared = prepare_pt2e(graph, quantizer)
    g = torch.Generator().manual_seed(2)
    for _ in range(1 if dynamic else 4):
        prepared(*[torch.randn(a.shape, generator=g) for a in args])
    return convert_pt2e(prepared)


class _Reader:
    """onnxruntime.quantization calibration data: the same kind of random inputs."""

    def __init__(self, input_name, shape):
        g = torch.Generator().manual_seed(2)
        self.items = iter([{input_name: torch.randn(shape, generator=g).numpy()}
                           for _ in range(4)])

    def get_next(self):
        return next(self.items, None)


def quantize_onnx(fp32_path, out_path, mode, shape):
    import onnxruntime as ort
    from onnxruntime.quantization import (QuantFormat, QuantType, quantize_dynamic,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    pre = out_path + ".pre.onnx"
    # Symbolic shape inference fails on the transformer's Reshape; ONNX shape inference does.
    quant_pre_process(fp32_path, pre, skip_symbolic_shape=True)
    if mode == "dynamic":
        quantize_dynamic(pre, out_path, weight_type=QuantType.QInt8, per_channel=True)
    else:
        name = ort.InferenceSession(pre, providers=["CPUExecutionProvider"]).get_inputs()[0].name
        quantize_static(pre, out_path, _Reader(name, shape), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QInt8,
                        weight_type=QuantType.QInt8)
    os.remove(pre)


# The quantize / dequantize operators' .out variants come from executorch's AOT library,
# which loads only into the torch it was built for (/opt/tv213's 2.13, not /opt/tv's
# 2.11): the portable quantized file is lowered there from the saved ExportedProgram.
PORTABLE_Q = r"""
import sys, torch
import executorch.kernels.quantized  # noqa: F401 - registers the .out variants
from executorch.exir import to_edge_transform_and_lower
ep = torch.export.load(sys.argv[1])
buf = to_edge_transform_and_lower(ep).to_executorch().buffer
open(sys.argv[2], "wb").write(buf)
print("wrote", sys.argv[2], len(buf), "bytes")
"""
# Where no such second venv exists (a venv whose torch matches its executorch wheel, as
# pip resolves executorch 1.5.1 today), the running interpreter lowers it.
PORTABLE_Q_PYTHON = os.environ.get(
    "PORTABLE_Q_PYTHON",
    "/opt/tv213/bin/python" if os.path.exists("/opt/tv213/bin/python") else sys.executable)


def portable_quantized(ep, path):
    import subprocess
    saved = path + ".pt2"
    torch.export.save(ep, saved)
    try:
        subprocess.run([PORTABLE_Q_PYTHON, "-c", PORTABLE_Q, saved, path], check=True)
    finally:
        os.remove(saved)


FORMS = ["portable", "xnnpack", "vulkan", "onnx"]


def main(names, forms):
    from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    os.makedirs(OUT, exist_ok=True)
    for name in names:
        base, mode = QUANTIZED.get(name, (name, None))
        model, args = build(base)
        model.eval()
        onnx_path = os.path.join(OUT, name + ".onnx")
        if mode is not None:
            # Uncalibrated batch norms leave MobileNetV2's activations so small that int8
            # rounds them all to zero (every runtime then returns the classifier's bias).
            model = calibrate(model, args[0].shape)
            if "onnx" in forms:
                fp32_onnx = onnx_path + ".fp32.onnx"
                torch.onnx.export(model, args, fp32_onnx, dynamo=False, opset_version=17)
                quantize_onnx(fp32_onnx, onnx_path, mode, args[0].shape)
                os.remove(fp32_onnx)
                print("wrote", onnx_path)
            model = quantize_pt2e(model, args, mode)
        with torch.no_grad():
            expected = model(*args)
        np.save(os.path.join(OUT, name + "_in.npy"), args[0].numpy())
        np.save(os.path.join(OUT, name + "_out.npy"), expected.numpy())
        ep = torch.export.export(model, args)
        for form, suffix, partitioners in (("portable", "", []),
                                           ("xnnpack", "_xnnpack", [XnnpackPartitioner()]),
                                           ("vulkan", "_vulkan", [VulkanPartitioner()])):
            if form not in forms or (mode is not None and form == "vulkan"):
                continue
            path = os.path.join(OUT, name + suffix + ".pte")
            if mode is not None and not partitioners:
                portable_quantized(ep, path)
                continue
            prog = to_edge_transform_and_lower(ep, partitioner=partitioners).to_executorch()
            with open(path, "wb") as f:
                f.write(prog.buffer)
            print("wrote", path, len(prog.buffer), "bytes")
        if mode is None and "onnx" in forms:
            torch.onnx.export(model, args, onnx_path, dynamo=False, opset_version=17)
            print("wrote", onnx_path)


def calibrate_bn(model, shape, batches=4, batch_size=4):
    """Running statistics of `batches` random batches (cumulative average)."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(batch_size, *shape[1:]))
    return model.eval()


def main_fp16(names):
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    os.makedirs(OUT, exist_ok=True)
    for name in names:
        model, args = build(name)
        model = calibrate_bn(model, args[0].shape).to(torch.float16)
        x = args[0].to(torch.float16)
        with torch.no_grad():
            expected = model(x)
        np.save(os.path.join(OUT, name + "_in_fp16.npy"), x.numpy())
        np.save(os.path.join(OUT, name + "_out_fp16.npy"), expected.float().numpy())
        ep = torch.export.export(model, (x,))
        prog = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch()
        path = os.path.join(OUT, name + "_xnnpack_fp16.pte")
        with open(path, "wb") as f:
            f.write(prog.buffer)
        print("wrote", path, len(prog.buffer), "bytes")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*")
    ap.add_argument("--forms", nargs="+", choices=FORMS, default=FORMS)
    ap.add_argument("--fp16", action="store_true",
                    help="write the fp16 XNNPACK programs instead (default model: mobilenet_v2)")
    a = ap.parse_args()
    if a.fp16:
        main_fp16(a.models or ["mobilenet_v2"])
    else:
        main(a.models or MODELS, a.forms)

#!/usr/bin/env python3
"""Export the benchmark models (full-size, random weights, seeded) in the
forms bench/compare.py times:

* `<model>.pte`          portable only (no delegate): what our optimized kernels run
* `<model>_xnnpack.pte`  lowered to XNNPACK with the official flow
* `<model>_vulkan.pte`   lowered with the official VulkanPartitioner (our Vulkan delegate)
* `<model>.onnx`         for ONNX Runtime

    /opt/tv/bin/python bench/export_bench_models.py                 # all models, all forms
    /opt/tv/bin/python bench/export_bench_models.py mobilenet_v2    # a subset
    /opt/tv/bin/python bench/export_bench_models.py --fp16 mobilenet_v2

`--fp16` writes instead the model cast to fp16 (`.to(torch.float16)`) and
lowered to XNNPACK: `<model>_xnnpack_fp16.pte`, `<model>_in_fp16.npy` (the
input in fp16) and `<model>_out_fp16.npy` (PyTorch eager in fp16, stored as
float32), for `compare.py --fp16`. Its batch norms first get running
statistics from a few random batches (the default ones let the activations
of these random-weight networks shrink to ~1e-9 at the output, which is 0 in
fp16 and would make the output check empty); the operators, so the time,
are those of the fp32 model.
    /opt/tv/bin/python bench/export_bench_models.py --forms vulkan  # only <model>_vulkan.pte

Files go to bench/models/ (git-ignored: they are 10-50 MB each and are
re-made byte-identically by this script). Also writes `<model>_in.npy` and
`<model>_out.npy` (PyTorch eager output) so compare.py can check that every
runtime it times computes the same thing.

Needs /opt/tv (torch 2.15, executorch 1.5.1, torchvision 0.29.2 --no-deps,
onnx, onnxruntime); see test/models/xnnpack/export_xnnpack.py for the venv.
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
    raise SystemExit("unknown model " + name)


MODELS = ["mobilenet_v2", "resnet18", "efficientnet_b0", "transformer"]


FORMS = ["portable", "xnnpack", "vulkan", "onnx"]


def main(names, forms):
    from executorch.backends.vulkan.partitioner.vulkan_partitioner import VulkanPartitioner
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    os.makedirs(OUT, exist_ok=True)
    for name in names:
        model, args = build(name)
        model.eval()
        with torch.no_grad():
            expected = model(*args)
        np.save(os.path.join(OUT, name + "_in.npy"), args[0].numpy())
        np.save(os.path.join(OUT, name + "_out.npy"), expected.numpy())
        ep = torch.export.export(model, args)
        for form, suffix, partitioners in (("portable", "", []),
                                           ("xnnpack", "_xnnpack", [XnnpackPartitioner()]),
                                           ("vulkan", "_vulkan", [VulkanPartitioner()])):
            if form not in forms:
                continue
            prog = to_edge_transform_and_lower(ep, partitioner=partitioners).to_executorch()
            path = os.path.join(OUT, name + suffix + ".pte")
            with open(path, "wb") as f:
                f.write(prog.buffer)
            print("wrote", path, len(prog.buffer), "bytes")
        if "onnx" not in forms:
            continue
        onnx_path = os.path.join(OUT, name + ".onnx")
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

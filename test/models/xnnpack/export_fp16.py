"""Exports the fp16 XNNPACK fixtures for test/xnnpack/fp16_test.cpp: models
cast with .to(torch.float16) and lowered by XnnpackPartitioner() (fp16 is
one of its default datatypes in executorch 1.5.1; no option is needed),
with their references.

    /opt/tv/bin/python test/models/xnnpack/export_fp16.py

Two interpreters: /opt/tv (torch 2.11, has torchvision for mobilenet_v2)
exports the programs and computes PyTorch eager in fp16; it then runs this
file again under /opt/tv213/bin/python (torch 2.13, whose executorch
runtime executes) with --official to record the official runtime's
outputs. Writes next to this file, for each case <c> in fp16_mlp, fp16_cnn,
fp16_mobilenet_v2:
  <c>.pte
  <c>/x.npy          the input (fp16 values, stored as float32)
  <c>/eager.npy      PyTorch eager in fp16 (float32 storage)
  <c>/fp32.npy       PyTorch eager in fp32 on the same fp16 weights and input
  <c>/official.npy   the official runtime's output (float32 storage)
Every fp16 value is exact in float32, so the .npy files hold them exactly.
"""
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from export_xnnpack import Cnn  # noqa: E402  (the same small CNN as xnnpack/cnn.pte)

CASES = ["fp16_mlp", "fp16_cnn", "fp16_mobilenet_v2"]
OFFICIAL_PYTHON = "/opt/tv213/bin/python"


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 64)
        self.fc2 = nn.Linear(64, 64)
        self.fc3 = nn.Linear(64, 10)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        return self.fc3(F.relu(self.fc2(h)) + h)


def calibrate_bn(model, shape, batches=8, batch_size=4):
    """Exact running statistics of a few random batches, then eval()."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None  # cumulative moving average
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(batch_size, *shape[1:]))
    for bn in bns:
        bn.momentum = 0.1
    return model.eval()


def build(case):
    """(fp16 model, fp16 input) of `case`; the model's fp32 weights are made
    and calibrated first, then the model is cast."""
    if case == "fp16_mlp":
        torch.manual_seed(1601)
        m = Mlp().eval()
        x = torch.randn(4, 32)
    elif case == "fp16_cnn":
        torch.manual_seed(1602)
        m = calibrate_bn(Cnn(), (1, 3, 16, 16))
        x = torch.randn(1, 3, 16, 16)
    else:
        import torchvision

        torch.manual_seed(1603)
        m = calibrate_bn(torchvision.models.mobilenet_v2(width_mult=0.5, num_classes=10), (1, 3, 64, 64))
        x = torch.randn(1, 3, 64, 64)
    return m.to(torch.float16), x.to(torch.float16)


def export_all():
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    for case in CASES:
        m, x = build(case)
        with torch.no_grad():
            eager = m(x)
            # The same fp16 weights and input computed in fp32 (no rounding
            # between operators): how far fp16 arithmetic itself moves the
            # output of each case.
            exact = m.float()(x.float())
            m.half()
        ep = torch.export.export(m, (x,))
        prog = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
        left = [
            str(n.target)
            for n in prog.exported_program().graph_module.graph.nodes
            if n.op == "call_function" and "executorch_call_delegate" not in str(n.target)
            and "getitem" not in str(n.target)
        ]
        print(f"{case}: operators outside the delegate: {left}")
        with open(os.path.join(HERE, case + ".pte"), "wb") as f:
            f.write(prog.to_executorch().buffer)
        out = os.path.join(HERE, case)
        os.makedirs(out, exist_ok=True)
        np.save(os.path.join(out, "x.npy"), x.float().numpy())
        np.save(os.path.join(out, "eager.npy"), eager.float().numpy())
        np.save(os.path.join(out, "fp32.npy"), exact.numpy())


def official_all():
    from executorch.runtime import Runtime

    for case in CASES:
        out = os.path.join(HERE, case)
        x = torch.from_numpy(np.load(os.path.join(out, "x.npy"))).to(torch.float16)
        method = Runtime.get().load_program(os.path.join(HERE, case + ".pte")).load_method("forward")
        official = method.execute([x])[0]
        assert official.dtype == torch.float16, official.dtype
        np.save(os.path.join(out, "official.npy"), official.float().numpy())
        eager = np.load(os.path.join(out, "eager.npy"))
        d = np.abs(official.float().numpy() - eager).max()
        exact = np.load(os.path.join(out, "fp32.npy"))
        print(
            f"{case}: max |official - eager| = {d:.4g}, max |official - fp32| = "
            f"{np.abs(official.float().numpy() - exact).max():.4g}, max |eager - fp32| = "
            f"{np.abs(eager - exact).max():.4g} (max |eager| {np.abs(eager).max():.4g})"
        )


if __name__ == "__main__":
    if "--official" in sys.argv:
        official_all()
    else:
        export_all()
        subprocess.run([OFFICIAL_PYTHON, os.path.abspath(__file__), "--official"], check=True)

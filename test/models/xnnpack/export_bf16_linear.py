"""Exports bf16_linear.pte: a bf16 linear layer (with bias) plus a residual
add, delegated to XNNPACK in bf16 (XnnpackPartitioner(enable_bf16=True)),
and its references, for test/xnnpack/bf16_test.cpp.

    /opt/tv213/bin/python test/models/xnnpack/export_bf16_linear.py

Needs executorch 1.5.1 with a runtime whose Method.execute works (torch
2.13, see /work/shared/docs/official-toolchain.md). Writes next to this file:
  bf16_linear.pte
  bf16_linear/x.npy, r.npy        the inputs (bf16 values, stored as float32)
  bf16_linear/eager.npy           PyTorch eager in bf16 (float32 storage)
  bf16_linear/official.npy        the official runtime's output (float32 storage)
Every bf16 value is exact in float32, so the .npy files hold them exactly.
"""
import os

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "bf16_linear")


class LinearResidual(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(24, 16, bias=True)

    def forward(self, x, r):
        return self.fc(x) + r


def main():
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    torch.manual_seed(1914)
    m = LinearResidual().eval().to(torch.bfloat16)
    x = torch.randn(3, 24).to(torch.bfloat16)
    r = torch.randn(3, 16).to(torch.bfloat16)
    with torch.no_grad():
        eager = m(x, r)
    ep = torch.export.export(m, (x, r))
    prog = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner(enable_bf16=True)])
    print(prog.exported_program().graph_module.code)
    pte = prog.to_executorch().buffer
    path = os.path.join(HERE, "bf16_linear.pte")
    with open(path, "wb") as f:
        f.write(pte)
    method = Runtime.get().load_program(path).load_method("forward")
    official = method.execute([x, r])[0]
    assert official.dtype == torch.bfloat16, official.dtype
    os.makedirs(OUT, exist_ok=True)
    for name, t in [("x", x), ("r", r), ("eager", eager), ("official", official)]:
        np.save(os.path.join(OUT, name + ".npy"), t.float().numpy())
    d = (official.float() - eager.float()).abs().max().item()
    print(f"max |official - eager| = {d:.4g} (max |eager| {eager.float().abs().max().item():.4g})")


if __name__ == "__main__":
    main()

"""Exports test/models/custom_ops_example.pte for the official custom-operator
examples (upstream examples/portable/custom_ops: custom_ops_1_out.cpp's
my_ops::mul3.out and custom_ops_2_out.cpp's my_ops::mul4.out, which
scripts/official_tests.sh compiles unchanged): forward(x) =
mul4(mul3(x) + 1), x Float [3, 4]. The operators are defined here for the
exporter (their meaning: x * 3 and x * 4). Also writes the input and
PyTorch's output as raw little-endian float32 (in.f32, out.f32), which
test/official_examples/custom_ops_example_test.cpp compares with.
    /opt/tv213/bin/python test/models/custom_ops_example/export_custom_ops_example.py
"""
import os

import numpy as np
import torch
from torch.library import Library

HERE = os.path.dirname(os.path.abspath(__file__))

lib = Library("my_ops", "DEF")
for name, factor in (("mul3", 3), ("mul4", 4)):
    lib.define(f"{name}(Tensor input) -> Tensor")
    lib.define(f"{name}.out(Tensor input, *, Tensor(a!) output) -> Tensor(a!)")
    lib.impl(name, lambda x, f=factor: x * f, "CompositeExplicitAutograd")

    def out_impl(x, *, output, f=factor):
        output.copy_(x * f)
        return output

    lib.impl(f"{name}.out", out_impl, "CompositeExplicitAutograd")


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.ops.my_ops.mul4.default(torch.ops.my_ops.mul3.default(x) + 1.0)


def main():
    from executorch.exir import EdgeCompileConfig, to_edge

    torch.manual_seed(0)
    x = torch.randn(3, 4)
    model = Model().eval()
    program = torch.export.export(model, (x,))
    edge = to_edge(program, compile_config=EdgeCompileConfig(_check_ir_validity=False))
    pte = edge.to_executorch()
    with open(os.path.join(HERE, "..", "custom_ops_example.pte"), "wb") as f:
        f.write(pte.buffer)
    x.numpy().astype("<f4").tofile(os.path.join(HERE, "in.f32"))
    model(x).detach().numpy().astype("<f4").tofile(os.path.join(HERE, "out.f32"))
    # The exporter's program runs on the official runtime with the same result
    # only where that runtime has the kernels; check the reference here.
    assert np.allclose(model(x).numpy(), (x.numpy() * 3 + 1) * 4)


if __name__ == "__main__":
    main()

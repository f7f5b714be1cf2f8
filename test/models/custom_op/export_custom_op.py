"""Exports test/models/custom_op.pte: a program that calls two custom
operators between ATen ops, for the official custom-op registration path
(EXECUTORCH_LIBRARY / register_kernels): my_ops::mul3.out (x * 3) and
my_ops::affine.out(x, int[] shifts, float factor, bool negate), which
computes (x * factor + sum(shifts)), negated when `negate` (list, Double and
Bool arguments). Also writes the input and PyTorch's output
(custom_op/a_in0.npy, a_out0.npy).
    /opt/tv/bin/python test/models/custom_op/export_custom_op.py
"""
import os

import numpy as np
import torch
from torch.library import Library

HERE = os.path.dirname(os.path.abspath(__file__))

lib = Library("my_ops", "DEF")
lib.define("mul3(Tensor input) -> Tensor")
lib.define("mul3.out(Tensor input, *, Tensor(a!) output) -> Tensor(a!)")
lib.impl("mul3", lambda x: x * 3, "CompositeExplicitAutograd")


def mul3_out(x, *, output):
    output.copy_(x * 3)
    return output


lib.impl("mul3.out", mul3_out, "CompositeExplicitAutograd")

lib.define("affine(Tensor input, int[] shifts, float factor, bool negate) -> Tensor")
lib.define("affine.out(Tensor input, int[] shifts, float factor, bool negate, *, "
           "Tensor(a!) output) -> Tensor(a!)")


def affine(x, shifts, factor, negate):
    y = x * factor + sum(shifts)
    return -y if negate else y


def affine_out(x, shifts, factor, negate, *, output):
    output.copy_(affine(x, shifts, factor, negate))
    return output


lib.impl("affine", affine, "CompositeExplicitAutograd")
lib.impl("affine.out", affine_out, "CompositeExplicitAutograd")


class Model(torch.nn.Module):
    def forward(self, x):
        y = torch.ops.my_ops.mul3.default(x + 1.0) - x
        return torch.ops.my_ops.affine.default(y, [1, 2], 0.5, True)


def main():
    from executorch.exir import EdgeCompileConfig, to_edge

    torch.manual_seed(0)
    x = torch.randn(2, 5)
    model = Model().eval()
    program = torch.export.export(model, (x,))
    edge = to_edge(program, compile_config=EdgeCompileConfig(_check_ir_validity=False))
    pte = edge.to_executorch()
    with open(os.path.join(HERE, "..", "custom_op.pte"), "wb") as f:
        f.write(pte.buffer)
    np.save(os.path.join(HERE, "a_in0.npy"), x.numpy())
    np.save(os.path.join(HERE, "a_out0.npy"), model(x).detach().numpy())


if __name__ == "__main__":
    main()

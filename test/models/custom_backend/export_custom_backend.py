"""Exports test/models/custom_backend.pte: a program whose whole graph
(y = x * 2.5 + 0.5) is lowered to a backend named "OfficialTestBackend",
for the official custom-backend path (runtime/backend/interface.h,
register_backend). The delegate payload is b"AFFINE" followed by the
scale and bias as little-endian float32; the compile spec "scale" repeats
the scale (to check specs reach the backend). Also writes the input and
PyTorch's output (custom_backend/a_in0.npy, a_out0.npy).
    /opt/tv/bin/python test/models/custom_backend/export_custom_backend.py
"""
import os
import struct
from typing import List

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
SCALE, BIAS = 2.5, 0.5


from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult  # noqa: E402
from executorch.exir.backend.compile_spec_schema import CompileSpec  # noqa: E402


class OfficialTestBackend(BackendDetails):
    @staticmethod
    def preprocess(edge_program, compile_specs: List[CompileSpec]) -> PreprocessResult:
        return PreprocessResult(processed_bytes=b"AFFINE" + struct.pack("<ff", SCALE, BIAS))


class Model(torch.nn.Module):
    def forward(self, x):
        return x * SCALE + BIAS


def main():
    from executorch.exir import to_edge
    from executorch.exir.backend.backend_api import to_backend

    torch.manual_seed(0)
    x = torch.randn(3, 4)
    model = Model().eval()
    edge = to_edge(torch.export.export(model, (x,)))
    lowered = to_backend("OfficialTestBackend", edge.exported_program(),
                         [CompileSpec("scale", struct.pack("<f", SCALE))])

    class Wrapper(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lowered = lowered

        def forward(self, x):
            return self.lowered(x)

    program = to_edge(torch.export.export(Wrapper(), (x,))).to_executorch()
    with open(os.path.join(HERE, "..", "custom_backend.pte"), "wb") as f:
        f.write(program.buffer)
    np.save(os.path.join(HERE, "a_in0.npy"), x.numpy())
    np.save(os.path.join(HERE, "a_out0.npy"), model(x).detach().numpy())


if __name__ == "__main__":
    main()

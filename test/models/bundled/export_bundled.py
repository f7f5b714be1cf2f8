#!/usr/bin/env python3
"""Write the BundledProgram (.bpte) fixtures with the OFFICIAL ExecuTorch tooling.

Each file wraps a program exported with `executorch` 1.5.1 plus test cases whose
expected outputs come from PyTorch eager. Before a file is written, the official
runtime (`_load_bundled_program_from_buffer`) runs every test case of it and
must accept it (the deliberately wrong file must be refused).

Run from the repository root (writes next to this script):

    /opt/tv/bin/python test/models/bundled/export_bundled.py

Files:
* mlp.bpte          Linear(4,8)-ReLU-Linear(8,3); 3 test cases of a [2,4] input.
* two_methods.bpte  `forward` (2 cases) and `decode` (2 inputs, 2 outputs; 2 cases).
* int_bool.bpte     int64 and bool tensor inputs, a traced Int input (3),
                    int64 / bool / float outputs; 2 cases.
* dynamic.bpte      batch is dynamic (1..8); cases with batch 1, 5 and 8.
* mlp_wrong.bpte    mlp.bpte's cases, but in case 1 output element [1, 2]
                    (flat index 5) is eager + 0.5. The numbers a reader must
                    report for it are printed by this script and written into
                    test/bundled/bundled_program_test.cpp.

Every model seeds torch's RNG, so the files are reproducible.
"""

import os
import sys

import torch
import torch.nn as nn

from executorch.devtools import BundledProgram
from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
from executorch.devtools.bundled_program.serialize import (
    serialize_from_bundled_program_to_flatbuffer,
)
from executorch.exir import to_edge_transform_and_lower
from executorch.exir.capture._capture import patch_forward

HERE = os.path.dirname(os.path.abspath(__file__))


def lower(programs):
    return to_edge_transform_and_lower(programs).to_executorch()


def case(model, method, args):
    with torch.no_grad():
        out = getattr(model, method)(*args)
    outs = out if isinstance(out, tuple) else (out,)
    return MethodTestCase(inputs=tuple(args), expected_outputs=tuple(o.clone() for o in outs))


def official_check(name, data, suites, expect_fail=False):
    """Runs every test case on the official runtime; returns False on failure."""
    try:
        from executorch.extension.pybindings.portable_lib import (
            _load_bundled_program_from_buffer,
        )
    except ImportError as e:  # pragma: no cover
        print(f"  {name}: official runtime unavailable ({e}); not checked")
        return True
    bp = _load_bundled_program_from_buffer(data)
    ok = True
    for method, count in suites:
        for i in range(count):
            try:
                bp.verify_result_with_bundled_expected_output(method, i, rtol=1e-5, atol=1e-6)
                passed = True
            except RuntimeError:
                passed = False
            print(f"  {name}: official runtime {method} case {i}: {'PASS' if passed else 'FAIL'}")
            if passed == (expect_fail and i == 1):
                ok = False
    return ok


def write(name, et, suites):
    bp = BundledProgram(et, [MethodTestSuite(method_name=m, test_cases=c) for m, c in suites])
    data = serialize_from_bundled_program_to_flatbuffer(bp)
    path = os.path.join(HERE, name)
    with open(path, "wb") as f:
        f.write(data)
    print(f"wrote {name} ({len(data)} bytes)")
    return data


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(4, 8)
        self.l2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x)))


def build_mlp():
    torch.manual_seed(21)
    m = Mlp().eval()
    et = lower(torch.export.export(m, (torch.randn(2, 4),)))
    cases = [case(m, "forward", [torch.randn(2, 4)]) for _ in range(3)]
    return m, et, cases


def build_two_methods():
    torch.manual_seed(22)

    class TwoMethods(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 3)
            self.scale = nn.Parameter(torch.randn(3))

        def forward(self, x):  # [2,4]
            return torch.relu(self.lin(x))

        def decode(self, x, y):  # [2,3], [2,3]
            return x * self.scale + y, x - y

    m = TwoMethods().eval()
    ep_fwd = torch.export.export(m, (torch.randn(2, 4),))
    with patch_forward(m, m.decode):
        ep_dec = torch.export.export(m, (torch.randn(2, 3), torch.randn(2, 3)))
    et = lower({"forward": ep_fwd, "decode": ep_dec})
    fwd = [case(m, "forward", [torch.randn(2, 4)]) for _ in range(2)]
    dec = [case(m, "decode", [torch.randn(2, 3), torch.randn(2, 3)]) for _ in range(2)]
    return et, [("decode", dec), ("forward", fwd)]


def build_int_bool():
    torch.manual_seed(23)

    class IntBool(nn.Module):
        def forward(self, a, mask, k: int):  # int64 [2,3], bool [2,3], traced int
            w = torch.where(mask, a * k, a + 1)  # int64
            return w, torch.logical_not(mask), w.to(torch.float32) * 0.5

    m = IntBool().eval()

    def inputs():
        return [
            torch.randint(-9, 9, (2, 3), dtype=torch.int64),
            torch.rand(2, 3) > 0.5,
            3,
        ]

    et = lower(torch.export.export(m, tuple(inputs())))
    cases = [case(m, "forward", inputs()) for _ in range(2)]
    return et, [("forward", cases)]


def build_dynamic():
    torch.manual_seed(24)
    m = Mlp().eval()
    batch = torch.export.Dim("batch", min=1, max=8)
    ep = torch.export.export(m, (torch.randn(8, 4),), dynamic_shapes={"x": {0: batch}})
    et = lower(ep)
    cases = [case(m, "forward", [torch.randn(b, 4)]) for b in (1, 5, 8)]
    return et, [("forward", cases)]


def main():
    ok = True
    mlp, et, cases = build_mlp()
    data = write("mlp.bpte", et, [("forward", cases)])
    ok &= official_check("mlp.bpte", data, [("forward", 3)])

    # Case 1 of the wrong file: output element [1, 2] raised by 0.5.
    actual = cases[1].expected_outputs[0]
    wrong = actual.clone()
    wrong[1, 2] += 0.5
    cases[1] = MethodTestCase(inputs=cases[1].inputs, expected_outputs=(wrong,))
    data = write("mlp_wrong.bpte", et, [("forward", cases)])
    ok &= official_check("mlp_wrong.bpte", data, [("forward", 3)], expect_fail=True)
    err = (wrong[1, 2].double() - actual[1, 2].double()).abs()
    rel = err / torch.maximum(wrong[1, 2].double().abs(), actual[1, 2].double().abs())
    print(f"  mlp_wrong.bpte case 1: eager {actual[1, 2].item():.9g}, bundled "
          f"{wrong[1, 2].item():.9g}, abs error {err.item():.9g}, rel error {rel.item():.9g}")

    for name, build in (
        ("two_methods.bpte", build_two_methods),
        ("int_bool.bpte", build_int_bool),
        ("dynamic.bpte", build_dynamic),
    ):
        et, suites = build()
        data = write(name, et, suites)
        ok &= official_check(name, data, [(n, len(c)) for n, c in suites])
    if not ok:
        print("the official runtime disagreed with the expected results")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

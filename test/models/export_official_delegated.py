#!/usr/bin/env python3
"""Export the delegated programs that upstream's
runtime/executor/test/backend_integration_test.cpp reads from environment
variables, with the official exporter (executorch 1.5.1).

Upstream makes them with test/models/export_delegated_program.py: the whole of
a small module lowered to a no-op ahead-of-time backend called "StubBackend",
whose processed payload is the 16 bytes b"StubBackend:data", with one compile
spec; the test registers a runtime backend of that name. The module, the
backend and the export calls here are our own:

* ModuleAddMulDelegated.pte: forward(a, x, b) = mm(a, x) + b, each Float
                     [2, 2], all of it one StubBackend call; the payload in a
                     segment after the flatbuffer
                                          (ET_MODULE_ADD_MUL_DELEGATED_PATH)
* ModuleAddMulDelegated-nosegments.pte: the same with the payload inline in
                     the flatbuffer (Program.backend_delegate_data)
                                          (ET_MODULE_ADD_MUL_NOSEGMENTS_PATH)
* ModuleAddMulDelegated-nosegments-da1024.pte: inline, with the inline delegate
                     data aligned to 1024 bytes in the file
                                  (ET_MODULE_ADD_MUL_NOSEGMENTS_DA1024_PATH)

The official runtime has no StubBackend, so it cannot run them; each file is
read back with the official deserializer instead, which must find one
delegate named StubBackend with the payload and compile spec above, stored
where the file's name says (and 1024-aligned for -da1024).

    /opt/tv213/bin/python test/models/export_official_delegated.py
"""
import os
import sys
from typing import final

import torch
from executorch.exir import ExecutorchBackendConfig, to_edge
from executorch.exir.backend.backend_api import to_backend
from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec
from torch.export import export

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "official_module")

# What the backend hands the runtime, and the one compile spec it is given.
PAYLOAD = b"StubBackend:data"
SPEC_KEY = "external_constants"


@final
class StubBackend(BackendDetails):
    """An ahead-of-time backend that compiles nothing: the program names it
    (by this class's name) and carries a fixed payload for its runtime side."""

    @staticmethod
    def preprocess(edge_program, compile_specs) -> PreprocessResult:
        return PreprocessResult(processed_bytes=PAYLOAD)


class AddMul(torch.nn.Module):
    def forward(self, a, x, b):
        return torch.add(torch.mm(a, x), b)


class Lowered(torch.nn.Module):
    """Calls the lowered module, so that the whole forward is one delegate call."""

    def __init__(self, lowered):
        super().__init__()
        self.lowered = lowered

    def forward(self, a, x, b):
        return self.lowered(a, x, b)


def export_delegated(extract_segments, delegate_alignment=None):
    inputs = (torch.ones(2, 2), 2 * torch.ones(2, 2), 3 * torch.ones(2, 2))
    edge = to_edge(export(AddMul(), inputs, strict=True))
    lowered = to_backend("StubBackend", edge.exported_program(),
                         [CompileSpec(key=SPEC_KEY, value=b"")])
    outer = to_edge(export(Lowered(lowered), inputs, strict=True))
    config = ExecutorchBackendConfig(extract_delegate_segments=extract_segments,
                                     delegate_alignment=delegate_alignment)
    return outer.to_executorch(config).buffer


def check(path, data, extract_segments, delegate_alignment):
    from executorch.exir._serialize._program import deserialize_pte_binary

    program = deserialize_pte_binary(data).program
    plan = program.execution_plan[0]
    if plan.name != "forward" or len(plan.delegates) != 1:
        sys.exit(f"{path}: expected one delegate in forward, got {plan.delegates}")
    delegate = plan.delegates[0]
    if delegate.id != "StubBackend":
        sys.exit(f"{path}: delegate id {delegate.id}")
    specs = [(s.key, bytes(s.value)) for s in delegate.compile_specs]
    if specs != [(SPEC_KEY, b"")]:
        sys.exit(f"{path}: compile specs {specs}")
    # The deserializer moves segment data back inline, so where it was stored
    # is read from the file: a segment after the flatbuffer holds the payload
    # only when segments were extracted.
    header_at = data.find(b"eh00", 0, 64)
    if extract_segments:
        if header_at < 0:
            sys.exit(f"{path}: no extended header, so no segments")
        flatbuffer_size = int.from_bytes(data[header_at + 8:header_at + 16], "little")
        if data.find(PAYLOAD, flatbuffer_size) < 0:
            sys.exit(f"{path}: the payload is not in a segment")
    else:
        at = data.find(PAYLOAD)
        if header_at >= 0 or at < 0:
            sys.exit(f"{path}: expected the payload inline and no segments")
        if delegate_alignment and at % delegate_alignment:
            sys.exit(f"{path}: inline payload at {at}, not {delegate_alignment}-aligned")
    index = delegate.processed.index
    if bytes(program.backend_delegate_data[index].data) != PAYLOAD:
        sys.exit(f"{path}: payload {program.backend_delegate_data[index].data}")


def main():
    os.makedirs(OUT, exist_ok=True)
    for suffix, extract, alignment in (("", True, None), ("-nosegments", False, None),
                                       ("-nosegments-da1024", False, 1024)):
        path = os.path.join(OUT, f"ModuleAddMulDelegated{suffix}.pte")
        data = export_delegated(extract, alignment)
        check(path, data, extract, alignment)
        with open(path, "wb") as f:
            f.write(data)
        print("wrote", path)


if __name__ == "__main__":
    main()

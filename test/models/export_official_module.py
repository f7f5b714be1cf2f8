#!/usr/bin/env python3
"""Export the .pte/.ptd fixtures that upstream's extension/module/test/module_test.cpp
reads from environment variables, with the official exporter (executorch 1.5.1).

Upstream builds them from test/models/export_program.py (ModuleAdd) and its
program-and-data variant (ModuleAddMul, ModuleLinear, weights in a .ptd); the
modules here are written from their description:

* ModuleAdd.pte:     forward(x, y, alpha: float) = torch.add(x, y, alpha=alpha),
                     x and y Float [2, 2]                     (ET_MODULE_ADD_PATH)
* ModuleAddMul.pte + ModuleAddMul.ptd: forward(x) = a * x + b, a = 3, b = 2
                     (2x2 constants in the .ptd)   (ET_MODULE_ADD_MUL_PROGRAM_PATH,
                                                    ET_MODULE_ADD_MUL_DATA_PATH)
* ModuleLinear.pte + ModuleLinear.ptd: nn.Linear(3, 3), weights in the .ptd
                     (ET_MODULE_LINEAR_PROGRAM_PATH, ET_MODULE_LINEAR_DATA_PATH)

and, for upstream's runtime/executor/test/method_meta_test.cpp:

* ModuleStateful.pte: forward(x) = x + state after state += 1, state an int32
                     [1] buffer whose name the program keeps, not memory-planned
                     (the caller provides it)                 (ET_MODULE_STATEFUL_PATH)

and, for upstream's runtime/executor/test/method_test.cpp:

* ModuleIndex.pte:   forward(x) = x[1::2, torch.tensor([1, 2])], x Float
                     [10, 10, 10] (an index.Tensor whose index list holds a
                     None)                                    (ET_MODULE_INDEX_PATH)
* ModuleDynamicCatUnallocatedIO.pte: forward(k) = cat(k, ones(1, 4)), k Float
                     [<= 3, 4] with a dynamic first dimension; neither the
                     input nor the output is memory-planned (the caller binds
                     both)               (ET_MODULE_DYNAMIC_CAT_UNALLOCATED_IO_PATH)
* ModuleAddMulOneFile.pte (below)                        (ET_MODULE_ADD_MUL_PATH)
* ModuleLinearConstantBuffer.pte (below): upstream keeps an old file for it,
                     ModuleLinear-no-constant-segment.pte
                                       (DEPRECATED_ET_MODULE_LINEAR_CONSTANT_BUFFER_PATH)

and, for our own test/compat/method_test.cpp:

* ModuleAddMulConstantBuffer.pte: ModuleAddMul's computation with its
                     constants in the flatbuffer's constant_buffer table, the
                     layout before constant segments (1.5.1's exporter no
                     longer has an option for it, so the emitted program is
                     serialized here without moving the constants out)

and, for upstream's runtime/executor/test/program_test.cpp:

* ModuleMultiEntry.pte: two methods, forward(x) = x + a and
                     forward2(x) = x + a + b, a = 3, b = 2 (2x2 constants)
                                                         (ET_MODULE_MULTI_ENTRY_PATH)
* ModuleAddMulOneFile.pte: ModuleAddMul with its constants in the program's
                     constant segment                       (ET_MODULE_ADD_MUL_PATH)
* ModuleLinearConstantBuffer.pte: nn.Linear(3, 3) (weight[i][j] = (3i + j) / 8,
                     bias (0.5, -0.25, 1)) with its constants in the
                     deprecated in-flatbuffer Program.constant_buffer, no
                     segments (DEPRECATED_ET_MODULE_LINEAR_CONSTANT_BUFFER_PATH)
* ModuleSimpleTrain.pte: the joint forward-backward graph of
                     softmax(nn.Linear(3, 3)(x)) under a cross-entropy loss (the
                     same weight and bias as ModuleLinearConstantBuffer): the
                     linear's weight and bias are mutable with an initial value,
                     kept in the program's mutable data segment
                                                         (ET_MODULE_SIMPLE_TRAIN_PATH)

and, for our own set_output tests (test/executor/set_output_test.cpp):

* ReturnsInput.pte:  forward(x, y) = (x, x + y), x and y Float [2, 3]: output 0
                     is input 0 itself, output 1 is memory-planned

Each program is run on the official Python runtime against PyTorch eager before
it is written. scripts/official_tests.sh points the variables at these files.

    /opt/tv213/bin/python test/models/export_official_module.py [name...]
"""
import os
import shutil
import sys
import tempfile

import torch
from executorch.exir import ExecutorchBackendConfig, to_edge_transform_and_lower
from executorch.exir.passes import MemoryPlanningPass
from torch.export import export

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "official_module")


class ModuleAdd(torch.nn.Module):
    def forward(self, x, y, alpha: float):
        return torch.add(x, y, alpha=alpha)


class ModuleAddMul(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = 3 * torch.ones(2, 2, dtype=torch.float)
        self.b = 2 * torch.ones(2, 2, dtype=torch.float)

    def forward(self, x):
        return torch.add(torch.mul(self.a, x), self.b)


class ModuleLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 3)

    def forward(self, x):
        return self.linear(x)


class ModuleStateful(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("state", torch.zeros(1, dtype=torch.int32))

    def forward(self, x):
        self.state.add_(1)
        return x + self.state


class ModuleIndex(torch.nn.Module):
    def forward(self, x):
        return x[1::2, torch.tensor([1, 2])]


class ModuleDynamicCatUnallocatedIO(torch.nn.Module):
    def forward(self, k):
        return torch.cat((k, torch.ones(1, 4)))


class ModuleMultiEntry(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = 3 * torch.ones(2, 2, dtype=torch.float)
        self.b = 2 * torch.ones(2, 2, dtype=torch.float)

    def forward(self, x):
        return x + self.a

    def forward2(self, x):
        return x + self.a + self.b


class _Method(torch.nn.Module):
    """Exports another method of `owner` as a forward."""

    def __init__(self, owner, name):
        super().__init__()
        self.owner = owner
        self.name = name

    def forward(self, *args):
        return getattr(self.owner, self.name)(*args)


class ModuleSimpleTrain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 3)
        self.loss = torch.nn.CrossEntropyLoss()

    def forward(self, x, y):
        return self.loss(self.linear(x).softmax(dim=0), y)


class ReturnsInput(torch.nn.Module):
    def forward(self, x, y):
        return x, x + y


def check_on_official_runtime(pte_path, ptd_path, model, inputs):
    from executorch.runtime import Runtime

    runtime = Runtime.get()
    if ptd_path is None:
        program = runtime.load_program(pte_path)
    else:
        program = runtime.load_program(pte_path, data_path=ptd_path)
    got = program.load_method("forward").execute(list(inputs))
    want = model(*inputs)
    want = list(want) if isinstance(want, tuple) else [want]
    for i, w in enumerate(want):
        if not torch.allclose(got[i], w, atol=1e-5):
            sys.exit(f"{pte_path}: official runtime gives {got[i]} for output {i}, eager {w}")


def constant_buffer_pte(et):
    """The emitted program serialized with its constants left in the
    flatbuffer's constant_buffer (entry 0 is the empty placeholder) and no
    segments, so no extended header either."""
    import copy

    from executorch.exir._serialize._flatbuffer_program import _program_to_flatbuffer
    from executorch.exir.schema import SubsegmentOffsets

    program = copy.deepcopy(et.executorch_program)
    if len(program.constant_buffer) < 2 or program.segments:
        sys.exit("constant_buffer_pte: expected constants and no segments in the emitted program")
    program.constant_segment = SubsegmentOffsets(segment_index=0, offsets=[])
    return bytes(_program_to_flatbuffer(program).data)


def check_constant_buffer(pte_path, model):
    """The 1.5.1 runtime wheel is built without the deprecated constant_buffer
    path (ET_ENABLE_DEPRECATED_CONSTANT_BUFFER=0: it refuses the program with
    InvalidProgram), so the official deserializer checks the file instead: no
    constant segment, and the constant_buffer holds the module's constants."""
    from executorch.exir._serialize._program import deserialize_pte_binary

    with open(pte_path, "rb") as f:
        data = f.read()
    if data[4:8] != b"ET12" or b"eh00" in data[:64]:
        sys.exit(f"{pte_path}: expected a plain flatbuffer without an extended header")
    program = deserialize_pte_binary(data).program
    if program.segments or program.constant_segment.offsets:
        sys.exit(f"{pte_path}: constants are in a segment")
    want = {bytes(t.numpy().tobytes()) for t in (model.a, model.b)}
    got = {bytes(b.storage) for b in program.constant_buffer[1:]}
    if got != want or len(program.constant_buffer[0].storage) != 0:
        sys.exit(f"{pte_path}: constant_buffer does not hold the module's constants")


def check_unallocated_cat(pte_path):
    """The dynamic cat program wants its input and output bound to caller
    memory, which the official Python runtime does not do; the official
    runtime loads it here and must report one input of at most [3, 4] and one
    output of at most [4, 4], neither memory-planned."""
    from executorch.runtime import Runtime

    meta = Runtime.get().load_program(pte_path).metadata("forward")
    if meta.num_inputs() != 1 or meta.num_outputs() != 1:
        sys.exit(f"{pte_path}: unexpected method meta {meta}")
    for tensor_meta, sizes in ((meta.input_tensor_meta(0), (3, 4)),
                               (meta.output_tensor_meta(0), (4, 4))):
        if tensor_meta.is_memory_planned() or tuple(tensor_meta.sizes()) != sizes:
            sys.exit(f"{pte_path}: unexpected tensor meta {tensor_meta}")


def write(name, model, inputs, external, config=None, dynamic_shapes=None, layout="segment"):
    program = export(model, inputs, dynamic_shapes=dynamic_shapes)
    if external:
        config = ExecutorchBackendConfig(external_constants=True)
    et = to_edge_transform_and_lower(program).to_executorch(config)
    pte = os.path.join(OUT, name + ".pte")
    with open(pte, "wb") as f:
        if layout == "constant_buffer":
            f.write(constant_buffer_pte(et))
        else:
            et.write_to_file(f)
    if layout == "constant_buffer":
        check_constant_buffer(pte, model)
        print("wrote", pte)
        return
    if layout == "unallocated_io":
        check_unallocated_cat(pte)
        print("wrote", pte)
        return
    ptd = None
    if external:
        with tempfile.TemporaryDirectory() as tmp:
            et.write_tensor_data_to_file(tmp)
            files = [f for f in os.listdir(tmp) if f.endswith(".ptd")]
            if len(files) != 1:
                sys.exit(f"{name}: expected one .ptd, got {files}")
            ptd = os.path.join(OUT, name + ".ptd")
            shutil.copyfile(os.path.join(tmp, files[0]), ptd)
    check_on_official_runtime(pte, ptd, model, inputs)
    print("wrote", pte, ptd or "")


def set_known_linear(linear):
    """weight[i][j] = (3 * i + j) / 8, bias = (0.5, -0.25, 1): values the tests
    (test/compat/program_test.cpp) compare the stored bytes with (exact in float)."""
    with torch.no_grad():
        linear.weight.copy_(torch.arange(9, dtype=torch.float).reshape(3, 3) / 8)
        linear.bias.copy_(torch.tensor([0.5, -0.25, 1.0]))


def write_multi_entry():
    model = ModuleMultiEntry()
    x = torch.randn(2, 2)
    programs = {name: export(_Method(model, name), (x,)) for name in ("forward", "forward2")}
    et = to_edge_transform_and_lower(programs).to_executorch()
    pte = os.path.join(OUT, "ModuleMultiEntry.pte")
    with open(pte, "wb") as f:
        et.write_to_file(f)
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(pte)
    for name, want in (("forward", model.forward(x)), ("forward2", model.forward2(x))):
        got = program.load_method(name).execute([x])[0]
        if not torch.allclose(got, want):
            sys.exit(f"{pte}: official runtime gives {got} for {name}, eager {want}")
    print("wrote", pte)


def write_constant_buffer():
    """ModuleLinear with its constants in the deprecated Program.constant_buffer."""
    from executorch.exir._serialize._flatbuffer_program import _program_to_flatbuffer
    from executorch.exir._serialize._program import deserialize_pte_binary

    model = ModuleLinear()
    set_known_linear(model.linear)
    et = to_edge_transform_and_lower(export(model, (torch.randn(3),))).to_executorch()
    # deserialize_pte_binary moves the constant segment back into
    # constant_buffer; the program is then flattened without segments (the
    # serializer would move the constants into a segment again).
    program = deserialize_pte_binary(et.buffer).program
    if len(program.constant_buffer) < 2:
        sys.exit("ModuleLinearConstantBuffer: expected constants in constant_buffer")
    program.constant_segment.offsets = []
    program.segments = []
    data = _program_to_flatbuffer(program).data
    check = deserialize_pte_binary(data).program
    if len(check.constant_buffer) != len(program.constant_buffer) or check.segments:
        sys.exit("ModuleLinearConstantBuffer: constant_buffer did not survive")
    # The official wheel is built without the deprecated constant buffer
    # (ET_ENABLE_DEPRECATED_CONSTANT_BUFFER=0), so the file is not run there.
    pte = os.path.join(OUT, "ModuleLinearConstantBuffer.pte")
    with open(pte, "wb") as f:
        f.write(data)
    print("wrote", pte)


def write_simple_train():
    from executorch.exir import to_edge
    from torch.export.experimental import _export_forward_backward

    model = ModuleSimpleTrain()
    set_known_linear(model.linear)
    inputs = (torch.randn(3), torch.tensor([1.0, 0.0, 0.0]))
    ep = _export_forward_backward(export(model, inputs, strict=True))
    et = to_edge(ep).to_executorch()
    pte = os.path.join(OUT, "ModuleSimpleTrain.pte")
    with open(pte, "wb") as f:
        et.write_to_file(f)
    from executorch.runtime import Runtime

    got = Runtime.get().load_program(pte).load_method("forward").execute(list(inputs))
    want = model(*inputs)
    if not torch.allclose(got[0], want, atol=1e-5):
        sys.exit(f"{pte}: official runtime gives loss {got[0]}, eager {want}")
    print("wrote", pte)


def main():
    # Names on the command line export only those programs.
    wanted = set(sys.argv[1:])
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    jobs = [
        ("ModuleAdd", ModuleAdd(), (torch.randn(2, 2), torch.randn(2, 2), 1.0), False, None),
        ("ModuleAddMul", ModuleAddMul(), (torch.ones(2, 2),), True, None),
        ("ModuleLinear", ModuleLinear(), (torch.randn(3),), True, None),
        ("ReturnsInput", ReturnsInput(), (torch.randn(2, 3), torch.randn(2, 3)), False, None),
        # The buffer keeps its name in the program (an attribute tensor) and
        # is left out of memory planning (the test reads it as not planned).
        ("ModuleStateful", ModuleStateful(), (torch.ones(1),), False,
         ExecutorchBackendConfig(emit_mutable_buffer_names=True,
                                 memory_planning_pass=MemoryPlanningPass(
                                     alloc_mutable_buffers=False))),
    ]
    for name, model, inputs, external, config in jobs:
        if not wanted or name in wanted:
            write(name, model, inputs, external, config)
    # method_test's programs (see the module docstring).
    if not wanted or "ModuleIndex" in wanted:
        write("ModuleIndex", ModuleIndex(), (torch.randn(10, 10, 10),), False)
    if not wanted or "ModuleAddMulConstantBuffer" in wanted:
        write("ModuleAddMulConstantBuffer", ModuleAddMul(), (torch.randn(2, 2),), False,
              layout="constant_buffer")
    if not wanted or "ModuleDynamicCatUnallocatedIO" in wanted:
        write("ModuleDynamicCatUnallocatedIO", ModuleDynamicCatUnallocatedIO(),
              (torch.randn(3, 4),), False,
              ExecutorchBackendConfig(memory_planning_pass=MemoryPlanningPass(
                  alloc_graph_input=False, alloc_graph_output=False)),
              dynamic_shapes=({0: torch.export.Dim("dim0_k", max=3)},),
              layout="unallocated_io")
    # program_test's programs.
    if not wanted or "ModuleAddMulOneFile" in wanted:
        write("ModuleAddMulOneFile", ModuleAddMul(), (torch.ones(2, 2),), False)
    for name, job in (("ModuleMultiEntry", write_multi_entry),
                      ("ModuleLinearConstantBuffer", write_constant_buffer),
                      ("ModuleSimpleTrain", write_simple_train)):
        if not wanted or name in wanted:
            job()


if __name__ == "__main__":
    main()

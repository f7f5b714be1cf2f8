"""The older ``executorch.extension.pybindings.portable_lib`` entry points, on the etr runtime.

Scripts written against them keep working with one changed import::

    # from executorch.extension.pybindings.portable_lib import _load_for_executorch
    from etr.portable_lib import _load_for_executorch

    m = _load_for_executorch("model.pte")
    outputs = m.forward([x])                 # or m.run_method("forward", [x]), m([x])

Inputs and outputs follow :mod:`etr.runtime`: numpy arrays in, numpy arrays
out, and torch tensors out when an input was a torch tensor (torch is never
required). ``clone_outputs`` is accepted; outputs are always copies that the
caller owns.

Bundled programs (``.bpte``)::

    bundle = _load_bundled_program_from_buffer(open("model.bpte", "rb").read())
    m = _load_for_executorch_from_bundled_program(bundle)
    m.load_bundled_input(bundle, "forward", 0)
    m.plan_execute("forward")
    m.verify_result_with_bundled_expected_output(bundle, "forward", 0)   # raises on mismatch

``enable_etdump=True`` (with ``debug_buffer_size`` for logged outputs) records
an ETDump that ``write_etdump_result_to_file`` writes, as the official module
does. Differences from the official module, all explicit: the legacy profiler
functions record nothing; method attributes (``get_attribute``) are not
supported and raise.
"""

from __future__ import annotations

import os
import tempfile
import weakref
from typing import Any, Dict, List, Optional, Sequence

from . import _etr
from .runtime import Error, MethodMeta, Runtime, TensorInfo, Verification, _unlink_quietly

__all__ = [
    "BundledModule",
    "ExecuTorchMethod",
    "ExecuTorchModule",
    "ExecuTorchProgram",
    "MethodMeta",
    "TensorInfo",
    "Verification",
    "_create_profile_block",
    "_dump_profile_results",
    "_get_operator_names",
    "_get_registered_backend_names",
    "_is_available",
    "_load_bundled_program_from_buffer",
    "_load_for_executorch",
    "_load_for_executorch_from_buffer",
    "_load_for_executorch_from_bundled_program",
    "_load_program",
    "_load_program_from_buffer",
    "_reset_profile_results",
    "_threadpool_get_thread_count",
    "_unsafe_reset_threadpool",
]

# Threads of the pools made for programs loaded from now on (0: one per physical core).
_num_threads = 0


def _load(source: Any, data_path: Optional[str], data_map_buffer: Optional[bytes],
          enable_etdump: bool = False, debug_buffer_size: int = 0):
    """An etr.runtime.Program; a .ptd given as bytes goes to a temporary file removed with it."""
    files: List[str] = []
    if data_path is not None:
        files.append(os.fspath(data_path))
    keep = None
    if data_map_buffer is not None:
        # The runtime maps .ptd files: give it one that lives as long as the program.
        fd, keep = tempfile.mkstemp(suffix=".ptd", prefix="etr-")
        with os.fdopen(fd, "wb") as f:
            f.write(bytes(data_map_buffer))
        files.append(keep)
    try:
        program = Runtime.get().load_program(source, data_files=files, num_threads=_num_threads,
                                             enable_etdump=enable_etdump,
                                             debug_buffer_size=debug_buffer_size)
    except BaseException:
        if keep is not None:
            _unlink_quietly(keep)
        raise
    if keep is not None:
        weakref.finalize(program, _unlink_quietly, keep)
    return program


class BundledModule:
    """A verified ``.bpte`` file: its program and test cases."""

    def __init__(self, data: bytes):
        self._native = _etr.BundledProgram(bytes(data))

    def program_data(self) -> bytes:
        return self._native.program_data()

    def method_names(self) -> List[str]:
        return self._native.method_names()

    def num_test_cases(self, method_name: str) -> int:
        return self._native.num_test_cases(method_name)


class ExecuTorchMethod:
    """One loaded method, driven step by step (``set_inputs``, ``execute``, ``get_outputs``)."""

    def __init__(self, program, name: str):
        self._program = program
        self._method = program.load_method(name)
        self._name = name
        self._inputs: Optional[List[Any]] = None
        self._outputs: Optional[List[Any]] = None

    def set_inputs(self, inputs: Sequence[Any]) -> None:
        self._inputs = list(inputs)

    def execute(self) -> None:
        if self._inputs is None:
            self._outputs = self._program._module.run(self._name)
        else:
            self._outputs = self._method.execute(self._inputs)

    def get_outputs(self, clone_outputs: bool = True) -> List[Any]:
        del clone_outputs  # outputs are always copies
        if self._outputs is None:
            raise Error(f"method '{self._name}': get_outputs before execute")
        return list(self._outputs)

    def call(self, inputs: Sequence[Any] = (), clone_outputs: bool = True) -> List[Any]:
        self.set_inputs(inputs)
        self.execute()
        return self.get_outputs(clone_outputs)

    __call__ = call

    def method_meta(self) -> MethodMeta:
        return self._program.metadata(self._name)

    def get_attribute(self, name: str) -> Any:
        raise NotImplementedError(f"method '{self._name}': attribute '{name}': method attributes "
                                  "are not supported by etr")


class ExecuTorchProgram:
    """A loaded program whose methods are loaded one by one (``_load_program``)."""

    def __init__(self, program, etdump: bool = False):
        self._program = program
        self._etdump = etdump
        self._names = sorted(program.method_names)

    def num_methods(self) -> int:
        return len(self._names)

    def get_method_name(self, method_index: int) -> str:
        if not 0 <= method_index < len(self._names):
            raise IndexError(f"method index {method_index} out of range [0, {len(self._names)})")
        return self._names[method_index]

    def load_method(self, method_name: str) -> ExecuTorchMethod:
        return ExecuTorchMethod(self._program, method_name)

    def method_meta(self, method_name: str) -> MethodMeta:
        return self._program.metadata(method_name)

    def has_etdump(self) -> bool:
        return self._etdump

    def write_etdump_result_to_file(self, path: str, debug_buffer_path: Optional[str] = None) -> None:
        """The ETDump recorded since the load (or the last write); raises
        :class:`etr.runtime.Error` (``InvalidState``) without ``enable_etdump``."""
        self._program.write_etdump_result_to_file(path, debug_buffer_path or "")


class ExecuTorchModule:
    """A loaded program whose methods load on first use (``_load_for_executorch``)."""

    def __init__(self, program, etdump: bool = False):
        self._program = program
        self._etdump = etdump
        self._methods: Dict[str, Any] = {}

    def _method(self, name: str):
        m = self._methods.get(name)
        if m is None:
            m = self._methods[name] = self._program.load_method(name)
        return m

    def run_method(self, method_name: str, inputs: Sequence[Any],
                   clone_outputs: bool = True) -> List[Any]:
        del clone_outputs  # outputs are always copies
        if not isinstance(inputs, (list, tuple)):
            raise TypeError(f"run_method: inputs must be a list or tuple, got {type(inputs).__name__}")
        return self._method(method_name).execute(inputs)

    def forward(self, inputs: Sequence[Any], clone_outputs: bool = True) -> List[Any]:
        return self.run_method("forward", inputs, clone_outputs)

    def __call__(self, inputs: Any, clone_outputs: bool = True) -> List[Any]:
        return self.forward(inputs, clone_outputs)

    def plan_execute(self, method_name: str, clone_outputs: bool = True) -> List[Any]:
        """Runs ``method_name`` with the inputs it holds (e.g. from ``load_bundled_input``)."""
        del clone_outputs
        self._method(method_name)
        return self._program._module.run(method_name)

    def load_bundled_input(self, bundle: BundledModule, method_name: str, testset_idx: int) -> None:
        self._method(method_name)
        self._program._module.load_bundled_input(bundle._native, method_name, testset_idx)

    def verify_result_with_bundled_expected_output(self, bundle: BundledModule, method_name: str,
                                                   testset_idx: int, rtol: float = 1e-5,
                                                   atol: float = 1e-8) -> Dict[str, Any]:
        """Compares the outputs of the last run of ``method_name`` with the test case's expected
        outputs; raises :class:`etr.runtime.Error` (code ``"NotFound"``, as the official check
        fails) on a mismatch, naming the worst element. Returns the comparison's figures."""
        cmp = self._program._module.compare_bundled_outputs(bundle._native, method_name,
                                                            testset_idx, rtol, atol)
        if not cmp["passed"]:
            err = Error(
                f"method '{method_name}' test case {testset_idx}: {cmp['mismatches']} elements "
                f"differ (rtol={rtol}, atol={atol}); worst: output {cmp['worst_output']} element "
                f"{cmp['worst_index']}: {cmp['worst_actual']!r}, expected {cmp['worst_expected']!r}")
            err.code = "NotFound"
            err.message = str(err)
            raise err
        return cmp

    def has_etdump(self) -> bool:
        return self._etdump

    def write_etdump_result_to_file(self, path: str, debug_buffer_path: Optional[str] = None) -> None:
        """The ETDump recorded since the load (or the last write); raises
        :class:`etr.runtime.Error` (``InvalidState``) without ``enable_etdump``."""
        self._program.write_etdump_result_to_file(path, debug_buffer_path or "")

    def method_meta(self, method_name: str) -> MethodMeta:
        return self._program.metadata(method_name)

    def method_names(self) -> List[str]:
        return sorted(self._program.method_names)


def _load_for_executorch(program_path: str, data_path: Optional[str] = None,
                         enable_etdump: bool = False, debug_buffer_size: int = 0,
                         program_verification: Verification = Verification.InternalConsistency
                         ) -> ExecuTorchModule:
    del program_verification  # etr always verifies fully
    return ExecuTorchModule(_load(os.fspath(program_path), data_path, None, enable_etdump,
                                  debug_buffer_size), enable_etdump)


def _load_for_executorch_from_buffer(buffer: bytes, data_map_buffer: Optional[bytes] = None,
                                     enable_etdump: bool = False, debug_buffer_size: int = 0,
                                     program_verification: Verification = (
                                         Verification.InternalConsistency)) -> ExecuTorchModule:
    del program_verification
    return ExecuTorchModule(_load(bytes(buffer), None, data_map_buffer, enable_etdump,
                                  debug_buffer_size), enable_etdump)


def _load_bundled_program_from_buffer(buffer: bytes, non_const_pool_size: int = 0) -> BundledModule:
    del non_const_pool_size  # etr sizes memory from the program
    return BundledModule(buffer)


def _load_for_executorch_from_bundled_program(module: BundledModule,
                                              data_map_buffer: Optional[bytes] = None,
                                              enable_etdump: bool = False,
                                              debug_buffer_size: int = 0) -> ExecuTorchModule:
    return ExecuTorchModule(_load(module.program_data(), None, data_map_buffer, enable_etdump,
                                  debug_buffer_size), enable_etdump)


def _load_program(path: str, enable_etdump: bool = False, debug_buffer_size: int = 0,
                  program_verification: Verification = Verification.Minimal,
                  data_path: Optional[str] = None) -> ExecuTorchProgram:
    del program_verification
    return ExecuTorchProgram(_load(os.fspath(path), data_path, None, enable_etdump,
                                   debug_buffer_size), enable_etdump)


def _load_program_from_buffer(buffer: bytes, enable_etdump: bool = False,
                              debug_buffer_size: int = 0,
                              program_verification: Verification = Verification.Minimal,
                              data_path: Optional[str] = None) -> ExecuTorchProgram:
    del program_verification
    return ExecuTorchProgram(_load(bytes(buffer), data_path, None, enable_etdump,
                                   debug_buffer_size), enable_etdump)


def _get_operator_names() -> List[str]:
    """Every operator the built-in kernel libraries implement ("aten::add.out", ...)."""
    return _etr.operator_names()


def _get_registered_backend_names() -> List[str]:
    return _etr.backend_names()


def _is_available(backend_name: str) -> bool:
    return backend_name in _etr.backend_names()


def _unsafe_reset_threadpool(num_threads: int) -> None:
    """Threads for programs loaded from now on (loaded ones keep their pools)."""
    global _num_threads
    if num_threads < 0:
        raise ValueError(f"_unsafe_reset_threadpool: num_threads must be >= 0, got {num_threads}")
    _num_threads = num_threads


def _threadpool_get_thread_count() -> int:
    """Threads given to programs loaded from now on (0: one per physical core)."""
    return _num_threads


def _create_profile_block(name: str) -> None:
    """The legacy profiler: records nothing in etr (see the module docstring)."""
    del name


def _dump_profile_results() -> bytes:
    return b""


def _reset_profile_results() -> None:
    pass

"""Run ExecuTorch .pte programs with the etr runtime, with the same shape as
the official ``executorch.runtime`` API, so that swapping the import is enough::

    from etr.runtime import Runtime
    rt = Runtime.get()
    program = rt.load_program("model.pte")          # path, bytes or file-like; data_files=[...]
    method = program.load_method("forward")
    outputs = method.execute([np.ones((1, 4), np.float32)])   # list of numpy arrays

Inputs: numpy arrays of any dtype the runtime has (float16 and bool included),
Python or numpy scalars for Int/Double/Bool inputs, and torch tensors when
torch is installed (it is never required). C-contiguous native-order arrays
(and CPU torch tensors, through ``.numpy()``) are borrowed, not copied, for the
duration of the call; others are made contiguous first. The input count, dtype
and shape are checked against the program before anything runs.

Outputs: numpy arrays, or torch tensors when an input was a torch tensor.
Each array owns its data: the runtime copies every output out of the method's
planned memory once (that memory is overwritten by the next execute, and a
method with mutable buffers would otherwise change arrays you still hold), and
the array wraps that copy without copying again. BFloat16 outputs become
float32 numpy arrays (exact), or bfloat16 torch tensors. Int/Double/Bool/String
outputs are Python int/float/bool/str.

Errors raise :class:`Error` (a ``RuntimeError``) whose ``code`` is the etr
error name (``"InvalidArgument"``, ``"NotFound"``, ...) and whose ``message``
is what the runtime logged (it names the method and input index).

Not thread-safe per Method beyond this: calls on one Program are serialized
(the GIL is released while a method runs).
"""

from __future__ import annotations

import enum
import os
import sys
import tempfile
import threading
import weakref
from typing import Any, List, Optional, Sequence, Set, Union

import numpy as np

from . import _etr

__all__ = ["Error", "Method", "MethodMeta", "Program", "Runtime", "TensorInfo", "Verification"]

#: Raised for every runtime failure; ``.code`` is the etr::Error name, ``.message`` the reason.
Error = _etr.Error

_BFLOAT16 = _etr.scalar_type_code("BFloat16")


class Verification(enum.IntEnum):
    """Accepted for compatibility with ``executorch.runtime``. etr always verifies the
    whole program (flatbuffer verifier plus internal consistency) when it is loaded."""

    Minimal = 0
    InternalConsistency = 1


class TensorInfo:
    """One declared input or output of a method.

    Official-style accessors: ``sizes()``, ``dtype()`` (ScalarType code),
    ``is_memory_planned()``, ``nbytes()``. Also: ``tag`` ("Tensor", "Int", ...),
    ``shape`` (tuple), ``dtype_name`` ("Float"), ``numpy_dtype`` (or None),
    ``dynamic`` (True when the shape may shrink below ``shape``), ``dim_order``.
    Non-tensor values have only ``tag``; the rest is None.
    """

    def __init__(self, d: dict):
        self.tag: str = d["tag"]
        self.shape = tuple(d["sizes"]) if "sizes" in d else None
        self.dtype_name: Optional[str] = d.get("dtype_name")
        npd = d.get("numpy_dtype")
        self.numpy_dtype = np.dtype(npd) if npd is not None else None
        self.dynamic: Optional[bool] = d.get("is_dynamic")
        self.dim_order = tuple(d["dim_order"]) if "dim_order" in d else None
        self._d = d

    def sizes(self):
        return self.shape

    def dtype(self) -> Optional[int]:
        return self._d.get("dtype")

    def is_memory_planned(self) -> Optional[bool]:
        return self._d.get("is_memory_planned")

    def nbytes(self) -> Optional[int]:
        return self._d.get("nbytes")

    def is_dynamic(self) -> Optional[bool]:
        return self.dynamic

    def __repr__(self) -> str:
        if self.tag != "Tensor":
            return f"TensorInfo(tag={self.tag})"
        return (f"TensorInfo(dtype={self.dtype_name}, shape={list(self.shape)}, "
                f"dynamic={self.dynamic})")


class MethodMeta:
    """Declared inputs and outputs of a method (``program.metadata(name)``)."""

    def __init__(self, d: dict):
        self._name: str = d["name"]
        self.inputs: List[TensorInfo] = [TensorInfo(x) for x in d["inputs"]]
        self.outputs: List[TensorInfo] = [TensorInfo(x) for x in d["outputs"]]
        self.backends: List[str] = list(d["backends"])
        self.memory_planned_buffer_sizes: List[int] = list(d["memory_planned_buffer_sizes"])
        self.num_instructions: int = d["num_instructions"]

    def name(self) -> str:
        return self._name

    def num_inputs(self) -> int:
        return len(self.inputs)

    def num_outputs(self) -> int:
        return len(self.outputs)

    def input_tensor_meta(self, index: int) -> TensorInfo:
        return self.inputs[index]

    def output_tensor_meta(self, index: int) -> TensorInfo:
        return self.outputs[index]

    def __repr__(self) -> str:
        return f"MethodMeta(name={self._name!r}, inputs={self.inputs}, outputs={self.outputs})"


def _is_torch_tensor(x: Any) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "detach")


def _prepare_input(x: Any):
    """(value for _etr, True when it came from torch)."""
    if isinstance(x, np.ndarray):
        if not x.flags.c_contiguous or x.dtype.byteorder == ">":
            x = np.ascontiguousarray(x, dtype=x.dtype.newbyteorder("="))
        return x, False
    if _is_torch_tensor(x):
        torch = sys.modules["torch"]
        t = x.detach()
        if t.device.type != "cpu":
            t = t.cpu()
        t = t.contiguous()
        if t.dtype == torch.bfloat16:  # numpy has no bfloat16: pass the raw bits
            return (t.view(torch.int16).numpy().view(np.uint16), _BFLOAT16), True
        return t.numpy(), True
    return x, False


def _convert_output(x: Any, as_torch: bool):
    if isinstance(x, tuple) and len(x) == 2 and x[0] == "BFloat16":
        bits = x[1]
        if as_torch:
            torch = sys.modules["torch"]
            return torch.from_numpy(bits.view(np.int16)).view(torch.bfloat16)
        return (bits.astype(np.uint32) << 16).view(np.float32)
    if as_torch and isinstance(x, np.ndarray):
        return sys.modules["torch"].from_numpy(x)
    return x


class Method:
    """A loaded method; its state (mutable buffers) persists across ``execute`` calls."""

    def __init__(self, program: "Program", name: str):
        self._program = program
        self._name = name

    @property
    def metadata(self) -> MethodMeta:
        return self._program.metadata(self._name)

    def execute(self, inputs: Sequence[Any] = ()) -> List[Any]:
        """Runs the method on ``inputs`` and returns its outputs (see the module docstring)."""
        prepared = []
        as_torch = False
        for x in inputs:
            value, from_torch = _prepare_input(x)
            prepared.append(value)
            as_torch = as_torch or from_torch
        outputs = self._program._module.execute(self._name, prepared)
        return [_convert_output(o, as_torch) for o in outputs]

    __call__ = execute

    def __repr__(self) -> str:
        return f"Method({self._name!r})"


class Program:
    """A loaded .pte program (``Runtime.load_program``)."""

    def __init__(self, module: "_etr.Module", temp_path: Optional[str] = None):
        self._module = module
        self._meta = {}
        if temp_path is not None:
            # bytes input: the program was written to a temporary file the runtime maps.
            weakref.finalize(self, _unlink_quietly, temp_path)

    @property
    def method_names(self) -> Set[str]:
        return set(self._module.method_names())

    def metadata(self, method_name: str) -> MethodMeta:
        meta = self._meta.get(method_name)
        if meta is None:
            meta = self._meta[method_name] = MethodMeta(self._module.method_meta(method_name))
        return meta

    def load_method(self, name: str) -> Method:
        self._module.load_method(name)
        return Method(self, name)

    def write_etdump_result_to_file(self, etdump_path: str, debug_buffer_path: str) -> None:
        """Writes the ETDump recorded since the load (or the last write, after which a
        new one starts) to ``etdump_path``, and the whole debug buffer to
        ``debug_buffer_path`` when ``debug_buffer_size`` was given. Raises :class:`Error`
        (``InvalidState``) when the program was loaded without ``enable_etdump``, and
        (``OutOfResources``) when the debug buffer was too small for what was logged."""
        self._module.write_etdump(os.fspath(etdump_path), os.fspath(debug_buffer_path or ""))


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


class Runtime:
    """Entry point: ``Runtime.get()`` returns the process-wide instance."""

    _instance: Optional["Runtime"] = None
    _lock = threading.Lock()

    @staticmethod
    def get() -> "Runtime":
        with Runtime._lock:
            if Runtime._instance is None:
                Runtime._instance = Runtime()
            return Runtime._instance

    def load_program(
        self,
        data: Union[str, os.PathLike, bytes, bytearray, memoryview, Any],
        *,
        verification: Verification = Verification.InternalConsistency,
        data_path: Optional[Union[str, os.PathLike]] = None,
        data_files: Sequence[Union[str, os.PathLike]] = (),
        num_threads: int = 0,
        enable_etdump: bool = False,
        debug_buffer_size: int = 0,
    ) -> Program:
        """Loads and verifies a program from a path, bytes-like object or binary file object.

        ``data_files`` (or the official ``data_path``) name .ptd files with external
        tensors. ``num_threads``: 0 = one per physical core, 1 = no pool.
        ``enable_etdump`` records every method load and execute as an ETDump (the
        official profiling record, read by ``executorch.devtools.Inspector``; methods then
        run without kernel fusion, one event per operator); ``debug_buffer_size`` > 0 also
        logs every operator's and delegate's outputs into a debug buffer of that many
        bytes. Write both with :meth:`Program.write_etdump_result_to_file`.
        ``verification`` is accepted for compatibility and ignored (etr always verifies
        fully)."""
        del verification
        etdump = (bool(enable_etdump), int(debug_buffer_size) if enable_etdump else 0)
        files = [os.fspath(p) for p in data_files]
        if data_path is not None:
            files.append(os.fspath(data_path))
        if isinstance(data, (str, os.PathLike)):
            return Program(_etr.Module(os.fspath(data), files, num_threads, *etdump))
        if hasattr(data, "read"):
            data = data.read()
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"load_program: expected a path, bytes or a file object, "
                            f"got {type(data).__name__}")
        # etr::Module maps a file: give it one, removed when the Program is collected.
        fd, path = tempfile.mkstemp(suffix=".pte", prefix="etr-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            module = _etr.Module(path, files, num_threads, *etdump)
        except BaseException:
            _unlink_quietly(path)
            raise
        return Program(module, temp_path=path)

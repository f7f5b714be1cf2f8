"""Tests of the etr Python bindings (etr.runtime), run by scripts/python_test.sh:

    PYTHONPATH=build-python/python /usr/bin/python3 -m pytest -q python/tests

Every runnable line of test/models/manifest.txt is checked with the manifest's
tolerance rule, plus errors, metadata, state and bytes loading.
"""

import io
import os
import pathlib

import numpy as np
import pytest

from conftest import vulkan_expected, xnnpack_expected
from etr.runtime import Error, Runtime, Verification

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "test" / "models"


def _manifest_cases(subdir=""):
    cases = []
    manifest = MODELS / subdir / "manifest.txt"
    for lineno, line in enumerate(manifest.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = dict(tok.split("=", 1) for tok in line.split())
        if "expect_error" in fields:
            continue
        inputs = [] if fields["inputs"] == "-" else fields["inputs"].split(",")
        if not all(p.endswith(".npy") for p in inputs):
            continue
        expected = [] if fields["expected"] == "-" else fields["expected"].split(",")
        fields["dir"] = subdir
        case_id = f"{subdir + '/' if subdir else ''}{fields['pte'][:-4]}-{fields['method']}-{lineno}"
        cases.append(pytest.param(fields, inputs, expected, id=case_id))
    return cases


def _check(got, exp_path, rtol, atol, what):
    if exp_path.suffix == ".txt":
        assert got == exp_path.read_bytes().decode(), what
        return
    exp = np.load(exp_path)
    if not isinstance(got, np.ndarray):  # Int / Double / Bool value: a 0-d array in the file
        assert exp.ndim == 0, what
        got = np.asarray(got)
    assert got.shape == exp.shape, f"{what}: shape {got.shape}, expected {exp.shape}"
    if exp.dtype.kind == "f" or got.dtype.kind == "f":
        g = got.astype(np.float64)
        e = exp.astype(np.float64)
        bad = np.abs(g - e) > atol + rtol * np.abs(e)
        assert not bad.any(), (f"{what}: {int(bad.sum())} elements off, max err "
                               f"{float(np.max(np.abs(g - e)))}")
    else:
        assert got.dtype == exp.dtype, f"{what}: dtype {got.dtype}, expected {exp.dtype}"
        assert np.array_equal(got, exp), what


@pytest.mark.parametrize("fields,inputs,expected",
                         _manifest_cases() + _manifest_cases("xnnpack"))
def test_manifest(fields, inputs, expected):
    base = MODELS / fields["dir"]
    data = [str(base / fields["data"])] if "data" in fields else []
    program = Runtime.get().load_program(str(base / fields["pte"]), data_files=data)
    try:
        method = program.load_method(fields["method"])
    except Error as e:
        if e.code == "BackendMissing" and fields["dir"] == "xnnpack" and not xnnpack_expected():
            pytest.skip("no libxnnpack-dev here: built without the XNNPACK backend")
        raise
    args = [np.load(base / p) for p in inputs]
    outputs = None
    for _ in range(int(fields["executions"])):
        outputs = method.execute(args)
    assert len(outputs) == len(expected)
    for i, (got, exp) in enumerate(zip(outputs, expected)):
        _check(got, base / exp, float(fields["rtol"]), float(fields["atol"]), f"output {i}")


def _mlp():
    return Runtime.get().load_program(str(MODELS / "mlp.pte"))


def _mlp_input():
    return np.load(MODELS / "mlp" / "a_in0.npy")


def test_runtime_is_a_singleton():
    assert Runtime.get() is Runtime.get()


def test_method_names_and_metadata():
    program = Runtime.get().load_program(MODELS / "two_methods.pte",
                                         verification=Verification.Minimal)
    assert program.method_names == {"forward", "decode", "get_int", "get_float", "get_bool",
                                    "get_name"}
    meta = program.metadata("decode")
    assert meta.name() == "decode"
    assert meta.num_inputs() == 2 and meta.num_outputs() == 2
    dec_in0 = np.load(MODELS / "two_methods" / "dec_in0.npy")
    info = meta.input_tensor_meta(0)
    assert info.tag == "Tensor"
    assert info.shape == dec_in0.shape and info.sizes() == dec_in0.shape
    assert info.numpy_dtype == dec_in0.dtype and info.dtype_name == "Float"
    assert info.dtype() == 6 and info.dynamic is False and info.nbytes() == dec_in0.nbytes
    assert program.metadata("get_int").outputs[0].tag == "Int"
    assert program.load_method("get_name").metadata.outputs[0].tag == "String"


def test_dynamic_metadata():
    meta = Runtime.get().load_program(str(MODELS / "dynamic_shape.pte")).metadata("forward")
    assert meta.inputs[0].dynamic is True
    assert meta.inputs[0].shape == (8, 4)


def test_load_program_from_bytes_and_file_object():
    data = (MODELS / "mlp.pte").read_bytes()
    expected = np.load(MODELS / "mlp" / "a_out0.npy")
    for source in (data, bytearray(data), io.BytesIO(data)):
        program = Runtime.get().load_program(source)
        out = program.load_method("forward").execute([_mlp_input()])[0]
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


def test_bytes_program_temp_file_is_removed():
    import gc
    import tempfile
    before = set(pathlib.Path(tempfile.gettempdir()).glob("etr-*.pte"))
    program = Runtime.get().load_program((MODELS / "mlp.pte").read_bytes())
    program.load_method("forward").execute([_mlp_input()])
    del program
    gc.collect()
    assert set(pathlib.Path(tempfile.gettempdir()).glob("etr-*.pte")) == before


def test_mutable_buffer_state_persists_and_outputs_own_their_data():
    program = Runtime.get().load_program(str(MODELS / "mutable_buffer.pte"))
    method = program.load_method("forward")
    x1 = np.load(MODELS / "mutable_buffer" / "run1_in0.npy")
    first = method.execute([x1])[0]
    first_copy = first.copy()
    np.testing.assert_allclose(first, np.load(MODELS / "mutable_buffer" / "run1_out0.npy"),
                               rtol=1e-5, atol=1e-6)
    x3 = np.load(MODELS / "mutable_buffer" / "run3_in0.npy")
    # A second Method object for the same name shares the loaded method and its state.
    method2 = program.load_method("forward")
    method2.execute([x3])
    last = method.execute([x3])[0]
    np.testing.assert_allclose(last, np.load(MODELS / "mutable_buffer" / "run3_out0.npy"),
                               rtol=1e-5, atol=1e-6)
    assert np.array_equal(first, first_copy)  # not overwritten by later calls
    assert first.flags.owndata or first.base is not None


def test_non_contiguous_and_big_endian_inputs_are_accepted():
    program = _mlp()
    method = program.load_method("forward")
    x = _mlp_input()
    expected = method.execute([x])[0]
    strided = np.asfortranarray(x)
    np.testing.assert_array_equal(method.execute([strided])[0], expected)
    np.testing.assert_array_equal(method.execute([x.astype(">f4")])[0], expected)


def test_scalar_inputs_and_outputs():
    program = Runtime.get().load_program(str(MODELS / "two_methods.pte"))
    assert program.load_method("get_int").execute([]) == [7]
    assert program.load_method("get_float").execute() == [1.5]
    assert program.load_method("get_bool").execute([]) == [True]
    assert program.load_method("get_name").execute([]) == ["tiny"]


def test_missing_file():
    with pytest.raises(Error) as e:
        Runtime.get().load_program("/nonexistent/model.pte")
    assert isinstance(e.value, RuntimeError)
    assert e.value.code == "AccessFailed"
    assert "/nonexistent/model.pte" in e.value.message


def test_invalid_program_bytes():
    with pytest.raises(Error) as e:
        Runtime.get().load_program(b"not a program at all, just some bytes")
    assert e.value.code in ("InvalidProgram", "InvalidArgument", "AccessFailed")


def test_unknown_method():
    with pytest.raises(Error) as e:
        _mlp().load_method("nope")
    assert e.value.code == "NotFound"
    with pytest.raises(Error) as e:
        _mlp().metadata("nope")
    assert e.value.code == "NotFound"


def test_wrong_input_count():
    method = _mlp().load_method("forward")
    with pytest.raises(Error) as e:
        method.execute([_mlp_input(), _mlp_input()])
    assert e.value.code == "InvalidArgument"
    assert "forward" in e.value.message and "takes 1 inputs, got 2" in e.value.message


def test_wrong_input_dtype():
    method = _mlp().load_method("forward")
    with pytest.raises(Error) as e:
        method.execute([_mlp_input().astype(np.float64)])
    assert e.value.code == "InvalidType"
    assert "'forward' input 0" in e.value.message and "Double" in e.value.message


def test_wrong_input_shape():
    method = _mlp().load_method("forward")
    with pytest.raises(Error) as e:
        method.execute([np.zeros((3, 8), np.float32)])
    assert e.value.code == "InvalidArgument"
    assert "'forward' input 0" in e.value.message and "shape" in e.value.message
    # The method still works after a refused call.
    out = method.execute([_mlp_input()])[0]
    np.testing.assert_allclose(out, np.load(MODELS / "mlp" / "a_out0.npy"), rtol=1e-5, atol=1e-6)


def test_unsupported_input_kind():
    method = _mlp().load_method("forward")
    with pytest.raises(Error) as e:
        method.execute(["a string"])
    assert e.value.code == "InvalidType" and "input 0" in e.value.message
    with pytest.raises(Error) as e:
        method.execute([np.zeros((2, 8), dtype="U1")])
    assert e.value.code == "InvalidType" and "input 0" in e.value.message


def test_dynamic_shape_too_big():
    method = Runtime.get().load_program(str(MODELS / "dynamic_shape.pte")).load_method("forward")
    with pytest.raises(Error) as e:
        method.execute([np.zeros((9, 4), np.float32)])
    assert e.value.code == "InvalidArgument" and "at most" in e.value.message


def test_torch_tensors_when_available():
    torch = pytest.importorskip("torch")
    method = _mlp().load_method("forward")
    out = method.execute([torch.from_numpy(_mlp_input())])[0]
    assert isinstance(out, torch.Tensor)
    np.testing.assert_allclose(out.numpy(), np.load(MODELS / "mlp" / "a_out0.npy"), rtol=1e-5,
                               atol=1e-6)


def test_data_path_official_keyword():
    base = MODELS / "xnnpack"
    program = Runtime.get().load_program(str(base / "external_weights.pte"),
                                         data_path=str(base / "external_weights.ptd"))
    try:
        method = program.load_method("forward")
    except Error as e:
        if e.code == "BackendMissing" and not xnnpack_expected():
            pytest.skip("no libxnnpack-dev here: built without the XNNPACK backend")
        raise
    out = method.execute([np.load(base / "external_weights" / "a_in0.npy")])[0]
    _check(out, base / "external_weights" / "a_out0.npy", 1e-4, 4.3e-05, "output 0")


def test_data_path_missing_file():
    with pytest.raises(Error) as e:
        Runtime.get().load_program(str(MODELS / "mlp.pte"), data_files=["/nonexistent/w.ptd"])
    assert e.value.code == "AccessFailed"
    assert os.path.basename("/nonexistent/w.ptd") in e.value.message


LAVAPIPE_ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"


def test_vulkan_lowered_program_runs_through_the_module():
    """A VulkanPartitioner program (test/models/vulkan) on Mesa's lavapipe, checked against
    PyTorch eager with the manifest's tolerance (2e-3 of the output scale)."""
    from etr import portable_lib

    if not vulkan_expected(LAVAPIPE_ICD):
        pytest.skip("no glslc or no lavapipe (mesa-vulkan-drivers): no Vulkan delegate here")
    assert portable_lib._is_available("VulkanBackend")
    # The CPU driver, as the C++ suite selects it (a GPU driver would test something else).
    os.environ["VK_DRIVER_FILES"] = LAVAPIPE_ICD
    os.environ["VK_ICD_FILENAMES"] = LAVAPIPE_ICD
    base = MODELS / "vulkan"
    method = Runtime.get().load_program(str(base / "cnn.pte")).load_method("forward")
    x = np.load(base / "cnn" / "a_in0.npy")
    want = np.load(base / "cnn" / "a_out0.npy")
    for _ in range(2):  # the second run reuses the recorded command buffer
        got = method.execute([x])[0]
        assert got.shape == want.shape
        assert np.abs(got - want).max() <= 2e-3 * np.abs(want).max()


def test_etdump_records_every_operator_and_logs_the_output(tmp_path):
    # mlp: 8 kernel calls (permute_copy, addmm, relu, ...). The ETDump is the
    # official size-prefixed "ED00" flatbuffer; with a debug buffer every
    # operator's output is logged, the method's output (PyTorch's value) last.
    rt = Runtime.get()
    program = rt.load_program(MODELS / "mlp.pte", enable_etdump=True, debug_buffer_size=1 << 16)
    method = program.load_method("forward")
    out = method.execute([np.load(MODELS / "mlp" / "a_in0.npy")])[0]
    etdp, dbg = tmp_path / "mlp.etdp", tmp_path / "mlp.bin"
    program.write_etdump_result_to_file(str(etdp), str(dbg))
    data = etdp.read_bytes()
    assert int.from_bytes(data[:4], "little") == len(data) - 4
    assert data[8:12] == b"ED00"
    for name in (b"Program::load_method", b"Method::execute", b"native_call_addmm.out",
                 b"native_call_permute_copy.out", b"native_call_relu.out", b"OPERATOR_CALL"):
        assert name in data, name
    debug = dbg.read_bytes()
    assert len(debug) == 1 << 16
    want = np.load(MODELS / "mlp" / "a_out0.npy")
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
    # The method's output is the last blob: 64-byte aligned, after 8 intermediates.
    n = want.size
    logged = [np.frombuffer(debug, np.float32, n, b) for b in range(0, len(debug) - 4 * n, 64)]
    close = [i for i, x in enumerate(logged) if np.allclose(x, want.ravel(), rtol=1e-5, atol=1e-6)]
    assert close, "no logged tensor holds PyTorch's output"
    assert not logged[max(close) + 1].any(), "the output is not the last blob"
    # The next write starts a new ETDump (no load block in it).
    method.execute([np.load(MODELS / "mlp" / "a_in0.npy")])
    program.write_etdump_result_to_file(str(etdp), str(dbg))
    again = etdp.read_bytes()
    assert b"Method::execute" in again and b"Program::load_method" not in again


def test_etdump_needs_enable_etdump(tmp_path):
    program = Runtime.get().load_program(MODELS / "mlp.pte")
    with pytest.raises(Error) as e:
        program.write_etdump_result_to_file(str(tmp_path / "x.etdp"), str(tmp_path / "x.bin"))
    assert e.value.code == "InvalidState"

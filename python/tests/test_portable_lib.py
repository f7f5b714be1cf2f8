"""Tests of etr.portable_lib, the older executorch.extension.pybindings.portable_lib entry
points. References are PyTorch's outputs committed with the fixtures (test/models)."""

import pathlib

import numpy as np
import pytest

from conftest import xnnpack_expected
from etr import portable_lib as pl
from etr.runtime import Error

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "test" / "models"
BUNDLED = MODELS / "bundled"


def _mlp():
    x = np.load(MODELS / "mlp" / "a_in0.npy")
    y = np.load(MODELS / "mlp" / "a_out0.npy")
    return x, y


def test_load_for_executorch_forward_run_method_and_call():
    x, y = _mlp()
    m = pl._load_for_executorch(str(MODELS / "mlp.pte"))
    for out in (m.forward([x]), m.run_method("forward", (x,)), m([x])):
        assert len(out) == 1
        np.testing.assert_allclose(out[0], y, rtol=1e-5, atol=1e-6)
    assert m.method_names() == ["forward"]
    meta = m.method_meta("forward")
    assert meta.num_inputs() == 1 and meta.num_outputs() == 1
    assert tuple(meta.input_tensor_meta(0).sizes()) == x.shape
    assert not m.has_etdump()


def test_load_for_executorch_from_buffer():
    x, y = _mlp()
    m = pl._load_for_executorch_from_buffer((MODELS / "mlp.pte").read_bytes())
    np.testing.assert_allclose(m.forward([x])[0], y, rtol=1e-5, atol=1e-6)


def test_external_data_as_path_and_as_buffer():
    base = MODELS / "xnnpack"
    if not xnnpack_expected():
        pytest.skip("no libxnnpack-dev here: built without the XNNPACK backend")
    assert "XnnpackBackend" in pl._get_registered_backend_names()
    x = np.load(base / "external_weights" / "a_in0.npy")
    y = np.load(base / "external_weights" / "a_out0.npy")
    a = pl._load_for_executorch(str(base / "external_weights.pte"),
                                data_path=str(base / "external_weights.ptd"))
    b = pl._load_for_executorch_from_buffer((base / "external_weights.pte").read_bytes(),
                                            (base / "external_weights.ptd").read_bytes())
    for m in (a, b):
        np.testing.assert_allclose(m.forward([x])[0], y, rtol=1e-4, atol=4.3e-05)


def test_program_and_method_step_by_step():
    x, y = _mlp()
    p = pl._load_program(str(MODELS / "mlp.pte"))
    assert p.num_methods() == 1 and p.get_method_name(0) == "forward"
    with pytest.raises(IndexError):
        p.get_method_name(1)
    method = p.load_method("forward")
    with pytest.raises(Error):
        method.get_outputs()  # nothing ran yet
    method.set_inputs([x])
    method.execute()
    np.testing.assert_allclose(method.get_outputs()[0], y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(method([x])[0], y, rtol=1e-5, atol=1e-6)
    assert method.method_meta().name() == "forward"
    q = pl._load_program_from_buffer((MODELS / "mlp.pte").read_bytes())
    np.testing.assert_allclose(q.load_method("forward").call([x])[0], y, rtol=1e-5, atol=1e-6)


def test_bundled_program_cases_pass():
    bundle = pl._load_bundled_program_from_buffer((BUNDLED / "mlp.bpte").read_bytes())
    assert bundle.method_names() == ["forward"]
    assert bundle.num_test_cases("forward") == 3
    m = pl._load_for_executorch_from_bundled_program(bundle)
    x, _ = _mlp()
    for i in range(3):
        m.load_bundled_input(bundle, "forward", i)
        out = m.plan_execute("forward")
        assert out[0].shape == (2, 3)
        cmp = m.verify_result_with_bundled_expected_output(bundle, "forward", i)
        assert cmp["passed"] and cmp["mismatches"] == 0


def test_bundled_program_mismatch_raises_with_the_worst_element():
    bundle = pl._load_bundled_program_from_buffer((BUNDLED / "mlp_wrong.bpte").read_bytes())
    m = pl._load_for_executorch_from_bundled_program(bundle)
    m.load_bundled_input(bundle, "forward", 0)
    m.plan_execute("forward")
    m.verify_result_with_bundled_expected_output(bundle, "forward", 0)
    m.load_bundled_input(bundle, "forward", 1)
    m.plan_execute("forward")
    with pytest.raises(Error) as e:
        m.verify_result_with_bundled_expected_output(bundle, "forward", 1)
    # export_bundled.py made case 1's expected element [1, 2] (flat 5) eager + 0.5.
    assert "1 elements differ" in e.value.message
    assert "element 5" in e.value.message
    assert "0.6167284" in e.value.message


def test_bundled_program_errors():
    with pytest.raises(Error):
        pl._load_bundled_program_from_buffer(b"not a bundled program at all")
    bundle = pl._load_bundled_program_from_buffer((BUNDLED / "mlp.bpte").read_bytes())
    with pytest.raises(Error) as e:
        bundle.num_test_cases("decode")
    assert e.value.code == "NotFound"
    m = pl._load_for_executorch_from_bundled_program(bundle)
    with pytest.raises(Error) as e:
        m.load_bundled_input(bundle, "forward", 7)
    assert e.value.code == "InvalidArgument"


def test_two_method_bundle():
    bundle = pl._load_bundled_program_from_buffer((BUNDLED / "two_methods.bpte").read_bytes())
    m = pl._load_for_executorch_from_bundled_program(bundle)
    for method in ("forward", "decode"):
        for i in range(bundle.num_test_cases(method)):
            m.load_bundled_input(bundle, method, i)
            m.plan_execute(method)
            assert m.verify_result_with_bundled_expected_output(bundle, method, i)["passed"]


def test_registry_queries():
    ops = pl._get_operator_names()
    assert "aten::add.out" in ops and "aten::addmm.out" in ops
    assert len(ops) == len(set(ops))
    assert not pl._is_available("NoSuchBackend")
    for name in pl._get_registered_backend_names():
        assert pl._is_available(name)


def test_threadpool_setting():
    before = pl._threadpool_get_thread_count()
    try:
        pl._unsafe_reset_threadpool(1)
        assert pl._threadpool_get_thread_count() == 1
        x, y = _mlp()
        m = pl._load_for_executorch(str(MODELS / "mlp.pte"))
        np.testing.assert_allclose(m.forward([x])[0], y, rtol=1e-5, atol=1e-6)
        with pytest.raises(ValueError):
            pl._unsafe_reset_threadpool(-1)
    finally:
        pl._unsafe_reset_threadpool(before)


def test_etdump_through_the_module(tmp_path):
    x, y = _mlp()
    m = pl._load_for_executorch(str(MODELS / "mlp.pte"), enable_etdump=True,
                                debug_buffer_size=1 << 16)
    assert m.has_etdump()
    np.testing.assert_allclose(m.forward([x])[0], y, rtol=1e-5, atol=1e-6)
    etdp, dbg = tmp_path / "mlp.etdp", tmp_path / "mlp.bin"
    m.write_etdump_result_to_file(str(etdp), str(dbg))
    data = etdp.read_bytes()
    assert data[8:12] == b"ED00"
    assert b"native_call_addmm.out" in data and b"Method::execute" in data
    # The debug buffer logged PyTorch's output somewhere (64-byte aligned blobs).
    debug = dbg.read_bytes()
    n = y.size
    blobs = [np.frombuffer(debug, np.float32, n, b) for b in range(0, len(debug) - 4 * n, 64)]
    assert any(np.allclose(b, y.ravel(), rtol=1e-5, atol=1e-6) for b in blobs)
    plain = pl._load_for_executorch(str(MODELS / "mlp.pte"))
    assert not plain.has_etdump()
    with pytest.raises(Error) as e:
        plain.write_etdump_result_to_file(str(tmp_path / "never.etdp"))
    assert e.value.code == "InvalidState"


def test_errors_name_what_failed():
    with pytest.raises(Error) as e:
        pl._load_for_executorch("/nonexistent/model.pte")
    assert e.value.code == "AccessFailed"
    m = pl._load_for_executorch(str(MODELS / "mlp.pte"))
    with pytest.raises(Error) as e:
        m.run_method("decode", [])
    assert e.value.code == "NotFound"
    with pytest.raises(TypeError):
        m.forward(np.zeros((2, 4), np.float32))  # inputs must be a list

#!/usr/bin/env python3
"""Checks our ETDump with the official Python Inspector (not part of the test
suite: it needs torch and executorch; run it with /opt/tv213/bin/python).

For each model it runs our executor_runner with --etdump_path and
--debug_buffer_path, loads the files with the official
`Inspector(etdump_path=..., debug_buffer_path=...)`, prints
`print_data_tabular()`, and fails when the Inspector cannot read them, when
the per-operator events are missing, or when the logged program output is not
PyTorch's value (the fixture's .npy). It then runs the same program on the
official runtime (executorch.runtime with enable_etdump) and compares the two
ETDumps event by event (blocks, names, chain / instruction ids, logged
tensors); the official XNNPACK delegate's per-operator sub-events
("Add (ND) #1", ...) are listed as not produced by us.

Allocation events (--allocations, or --allocations-only): the official
runtime writes none (its ETDump of mlp has no allocator list and no
AllocationEvent); the official Inspector reads a RunData allocator list but
refuses any AllocationEvent ("Unable to find populated event"), also in a file
written with the official schema and flatc from the official runtime's own
ETDump with one allocation event added. Ours (the official ETDumpGen of
extension/compat, written by etr_official_etdump_tests with
ETR_ALLOCATION_ETDUMP set) is read by the official deserializer with the
allocator names, ids and sizes the test gave, and refused by the Inspector the
same way.

With --etrecord it also exports mlp with the official exporter, writes its
ETRecord, runs our runner on that .pte and calls Inspector's
calculate_numeric_gap (our logged intermediates against the ETRecord graph run
by PyTorch).

  /opt/tv213/bin/python scripts/etdump_inspector_check.py [--runner PATH] [--etrecord]
      [--allocations | --allocations-only] [--compat-tests PATH]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(ROOT, "test", "models")
CASES = [
    # (name, .pte, inputs, reference output)
    ("mlp", "mlp.pte", ["mlp/a_in0.npy"], "mlp/a_out0.npy"),
    (
        "add_xnnpack",
        "add_xnnpack.pte",
        ["add_xnnpack/a_in0.npy", "add_xnnpack/a_in1.npy"],
        "add_xnnpack/a_out0.npy",
    ),
    ("xnnpack/cnn", "xnnpack/cnn.pte", ["xnnpack/cnn/a_in0.npy"], "xnnpack/cnn/a_out0.npy"),
]


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def run_ours(runner, pte, inputs, out_dir, tag):
    etdp = os.path.join(out_dir, tag + ".etdp")
    dbg = os.path.join(out_dir, tag + ".bin")
    cmd = [runner, f"--model_path={pte}", f"--etdump_path={etdp}", f"--debug_buffer_path={dbg}",
           "--debug_buffer_size=4194304"] + [f"--input={i}" for i in inputs]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"executor_runner failed ({r.returncode}): {r.stdout}{r.stderr}")
    return etdp, dbg


def run_official(pte, inputs, out_dir, tag):
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(pte, enable_etdump=True, debug_buffer_size=4 << 20)
    method = program.load_method("forward")
    method.execute([torch.from_numpy(np.load(i)) for i in inputs])
    etdp = os.path.join(out_dir, tag + "_official.etdp")
    dbg = os.path.join(out_dir, tag + "_official.bin")
    program.write_etdump_result_to_file(etdp, dbg)
    return etdp, dbg


def inspect(etdp, dbg, etrecord=None):
    from executorch.devtools import Inspector

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Inspector(etdump_path=etdp, debug_buffer_path=dbg, etrecord=etrecord)


def event_rows(inspector):
    """(block, event name, instruction id, debug tensors) of every event."""
    rows = []
    for block in inspector.event_blocks:
        for e in block.events:
            data = [d for d in (e.debug_data or []) if isinstance(d, torch.Tensor)]
            rows.append((block.name, e.name, e._instruction_id, data, e.perf_data))
    return rows


def check_case(runner, name, pte, inputs, reference, out_dir):
    print(f"== {name}: {pte}")
    tag = name.replace("/", "_")
    etdp, dbg = run_ours(runner, pte, inputs, out_dir, tag)
    ours = inspect(etdp, dbg)
    ours.print_data_tabular()
    rows = event_rows(ours)
    execute = [r for r in rows if r[0] == "Execute"]
    per_op = [r for r in execute if r[1].startswith("native_call_") or r[1] == "DELEGATE_CALL"]
    if not per_op:
        fail(f"{name}: no per-operator events in the Execute block")
    for r in per_op:
        if r[4] is None or not r[4].raw or r[4].raw[0] < 0:
            fail(f"{name}: event {r[1]} has no timing")
    want = torch.from_numpy(np.load(reference))
    outputs = [b.run_output for b in ours.event_blocks if b.name == "Execute"]
    if not outputs or not outputs[0]:
        fail(f"{name}: the Inspector found no program output")
    got = outputs[0][0]
    if not torch.allclose(got, want, rtol=1e-4, atol=1e-5):
        fail(f"{name}: logged program output differs from PyTorch's by "
             f"{(got - want).abs().max().item()}")
    print(f"{name}: {len(per_op)} per-operator events; program output matches PyTorch "
          f"(max |diff| {(got - want).abs().max().item():.3g})")

    # The official runtime on the same program, event by event.
    off_etdp, off_dbg = run_official(pte, inputs, out_dir, tag)
    official = inspect(off_etdp, off_dbg)
    off_rows = event_rows(official)
    sub_events = [r for r in off_rows if r[2] is not None and not r[1].startswith(
        ("native_call_", "OPERATOR_CALL", "DELEGATE_CALL", "Method::", "Program::"))]
    off_rows = [r for r in off_rows if r not in sub_events]
    key = [(r[0], r[1], r[2]) for r in rows]
    off_key = [(r[0], r[1], r[2]) for r in off_rows]
    if key != off_key:
        for a, b in zip(key + [None] * len(off_key), off_key + [None] * len(key)):
            print(f"  ours {a}  official {b}")
        fail(f"{name}: events differ from the official runtime's ETDump")
    worst = 0.0
    for a, b in zip(rows, off_rows):
        if len(a[3]) != len(b[3]):
            fail(f"{name}: event {a[1]} logs {len(a[3])} tensors, the official runtime {len(b[3])}")
        for x, y in zip(a[3], b[3]):
            if x.shape != y.shape or x.dtype != y.dtype:
                fail(f"{name}: event {a[1]}: tensor {tuple(x.shape)} {x.dtype} vs official "
                     f"{tuple(y.shape)} {y.dtype}")
            if x.numel():
                worst = max(worst, (x.double() - y.double()).abs().max().item())
    print(f"{name}: same {len(key)} events as the official runtime's ETDump; logged tensors "
          f"within {worst:.3g} of its values")
    if sub_events:
        print(f"{name}: official delegate sub-events we do not produce: "
              + ", ".join(sorted({str(r[1]) for r in sub_events})))


def check_etrecord(runner, out_dir):
    """mlp as test/models/export_models.py builds it, with an ETRecord."""
    from executorch.devtools import generate_etrecord
    from executorch.exir import to_edge_transform_and_lower

    torch.manual_seed(3)
    m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 16),
                            torch.nn.ReLU(), torch.nn.Linear(16, 4)).eval()
    args = (torch.randn(2, 8),)
    exported = torch.export.export(m, args)
    edge = to_edge_transform_and_lower(exported, generate_etrecord=True)
    et = edge.to_executorch()
    pte = os.path.join(out_dir, "mlp_etrecord.pte")
    with open(pte, "wb") as f:
        f.write(et.buffer)
    etrecord = os.path.join(out_dir, "mlp.etrecord")
    try:
        record = et.get_etrecord()
        record.update_representative_inputs(args)
        record.save(etrecord)
    except AttributeError:  # older exporters
        generate_etrecord(etrecord, edge, et, exported)
    np.save(os.path.join(out_dir, "mlp_in.npy"), args[0].numpy())
    etdp, dbg = run_ours(runner, pte, [os.path.join(out_dir, "mlp_in.npy")], out_dir, "mlp_er")
    inspector = inspect(etdp, dbg, etrecord)
    inspector.print_data_tabular()
    linked = [e for b in inspector.event_blocks for e in b.events if e.op_types]
    if not linked:
        fail("etrecord: no event was linked to a graph node")
    print(f"etrecord: {len(linked)} events linked to graph nodes "
          f"({', '.join(sorted({t for e in linked for t in e.op_types}))})")
    gap = inspector.calculate_numeric_gap("MSE")
    cols = [c for c in ("aot_ops", "runtime_ops", "gap") if c in gap.columns]
    print(gap[cols].to_string())
    gaps = [float(np.max(np.asarray(g, dtype=np.float64))) for g in gap["gap"]]
    if not gaps or max(gaps) > 1e-8:
        fail(f"etrecord: numeric gap {gaps}")
    print(f"etrecord: calculate_numeric_gap over {len(gaps)} nodes, largest MSE {max(gaps):.3g}")


def write_etdump(etdump, path):
    """Writes an ETDump dataclass with the official schema and flatc,
    size-prefixed as the runtime writes it (the official
    serialize_to_etdump_flatcc leaves the size prefix out, which its own
    deserializer then refuses)."""
    from executorch.devtools.etdump import serialize as ser

    flatc = os.path.join(os.path.dirname(ser.__file__), "..", "..", "data", "bin", "flatc")
    with tempfile.TemporaryDirectory() as d:
        ser._write_schema(d, ser.ETDUMP_FLATCC_SCHEMA_NAME)
        ser._write_schema(d, ser.SCALAR_TYPE_SCHEMA_NAME)
        schema = os.path.join(d, ser.ETDUMP_FLATCC_SCHEMA_NAME + ".fbs")
        json_path = os.path.join(d, "etdump.json")
        with open(json_path, "w") as f:
            f.write(ser._serialize_from_etdump_to_json(etdump))
        subprocess.run([flatc, "--binary", "--size-prefixed", "-o", d, schema, json_path],
                       check=True, capture_output=True)
        with open(os.path.join(d, "etdump.etdp"), "rb") as f, open(path, "wb") as out:
            out.write(f.read())


def inspector_error(etdp, dbg):
    """None when the Inspector reads the file, else its error as text."""
    try:
        inspect(etdp, dbg)
        return None
    except Exception as e:  # the Inspector's own exception, whatever its type
        return f"{type(e).__name__}: {e}"


def check_allocations(compat_tests, out_dir):
    import dataclasses

    from executorch.devtools.etdump import schema_flatcc as S
    from executorch.devtools.etdump.serialize import deserialize_from_etdump_flatcc

    print("== allocation events")
    refused = "ValueError: Unable to find populated event"
    pte = os.path.join(MODELS, "mlp.pte")
    etdp, dbg = run_official(pte, [os.path.join(MODELS, "mlp/a_in0.npy")], out_dir, "alloc")
    with open(etdp, "rb") as f:
        official = deserialize_from_etdump_flatcc(f.read())
    for rd in official.run_data:
        if rd.allocators or any(e.allocation_event for e in rd.events):
            fail(f"the official runtime wrote allocation data in block {rd.name}")
    print("official runtime (executorch.runtime, enable_etdump): no allocators, no allocation "
          "events")

    last = official.run_data[-1]
    listed = dataclasses.replace(last, allocators=[S.Allocator(name="method"),
                                                  S.Allocator(name="temp")])
    allocation = S.Event(profile_event=None, debug_event=None,
                         allocation_event=S.AllocationEvent(allocator_id=1, allocation_size=128))
    with_event = dataclasses.replace(listed, events=[allocation] + list(last.events))
    listed_path = os.path.join(out_dir, "official_allocators.etdp")
    event_path = os.path.join(out_dir, "official_allocation_event.etdp")
    write_etdump(dataclasses.replace(official, run_data=official.run_data[:-1] + [listed]),
                 listed_path)
    write_etdump(dataclasses.replace(official, run_data=official.run_data[:-1] + [with_event]),
                 event_path)
    err = inspector_error(listed_path, dbg)
    if err is not None:
        fail(f"the Inspector refused an allocator list: {err}")
    print("official ETDump + allocator list: the Inspector reads it")
    err = inspector_error(event_path, dbg)
    if err != refused:
        fail(f"expected the Inspector to refuse an allocation event, got: {err}")
    print(f"official ETDump + one allocation event: the Inspector refuses it ({err})")

    ours = os.path.join(out_dir, "ours_allocations.etdp")
    r = subprocess.run(
        [compat_tests,
         "--gtest_filter=OfficialETDumpAllocationTest.AllocatorsAndAllocationEventsAreWrittenAsUpstream"],
        env=dict(os.environ, ETR_ALLOCATION_ETDUMP=ours), capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(ours):
        fail(f"{compat_tests} failed ({r.returncode}): {r.stdout}{r.stderr}")
    with open(ours, "rb") as f:
        got = deserialize_from_etdump_flatcc(f.read())
    summary = [([a.name for a in rd.allocators or []],
                [(e.allocation_event.allocator_id, e.allocation_event.allocation_size)
                 for e in rd.events if e.allocation_event]) for rd in got.run_data]
    want = [(["method allocator", "temp allocator"], [(1, 128), (2, 64)]),
            (["temp allocator"], [(1, 32)]),
            ([], [])]
    if summary != want:
        fail(f"our allocation events as the official deserializer reads them: {summary}, "
             f"expected {want}")
    print(f"ours, read by the official deserializer: {summary}")
    err = inspector_error(ours, dbg)
    if err != refused:
        fail(f"expected the Inspector to refuse our allocation events as the official ones, "
             f"got: {err}")
    print(f"ours: the Inspector refuses it the same way ({err})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", default=os.path.join(ROOT, "build", "examples", "executor_runner",
                                                     "executor_runner"))
    ap.add_argument("--etrecord", action="store_true", help="also check ETRecord linking")
    ap.add_argument("--keep", help="directory to keep the files in (default: a temp dir)")
    ap.add_argument("--allocations", action="store_true", help="also check allocation events")
    ap.add_argument("--allocations-only", action="store_true",
                    help="check allocation events only")
    ap.add_argument("--compat-tests", default=os.path.join(ROOT, "build", "test",
                                                           "etr_official_etdump_tests"))
    a = ap.parse_args()
    out_dir = a.keep or tempfile.mkdtemp(prefix="etdump_check_")
    os.makedirs(out_dir, exist_ok=True)
    if a.allocations_only:
        check_allocations(a.compat_tests, out_dir)
        print("OK")
        return
    for name, pte, inputs, ref in CASES:
        check_case(a.runner, name, os.path.join(MODELS, pte),
                   [os.path.join(MODELS, i) for i in inputs], os.path.join(MODELS, ref), out_dir)
    if a.etrecord:
        check_etrecord(a.runner, out_dir)
    if a.allocations:
        check_allocations(a.compat_tests, out_dir)
    print("OK")


if __name__ == "__main__":
    main()

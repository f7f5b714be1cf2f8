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

With --etrecord it also exports mlp with the official exporter, writes its
ETRecord, runs our runner on that .pte and calls Inspector's
calculate_numeric_gap (our logged intermediates against the ETRecord graph run
by PyTorch).

  /opt/tv213/bin/python scripts/etdump_inspector_check.py [--runner PATH] [--etrecord]
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", default=os.path.join(ROOT, "build", "examples", "executor_runner",
                                                     "executor_runner"))
    ap.add_argument("--etrecord", action="store_true", help="also check ETRecord linking")
    ap.add_argument("--keep", help="directory to keep the files in (default: a temp dir)")
    a = ap.parse_args()
    out_dir = a.keep or tempfile.mkdtemp(prefix="etdump_check_")
    os.makedirs(out_dir, exist_ok=True)
    for name, pte, inputs, ref in CASES:
        check_case(a.runner, name, os.path.join(MODELS, pte),
                   [os.path.join(MODELS, i) for i in inputs], os.path.join(MODELS, ref), out_dir)
    if a.etrecord:
        check_etrecord(a.runner, out_dir)
    print("OK")


if __name__ == "__main__":
    main()

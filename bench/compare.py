#!/usr/bin/env python3
"""Side-by-side speed of the same models on four runtimes, at 1 and 2 threads:

* ours, portable-only `.pte` (our optimized kernels; no delegate)
* ours, XNNPACK-lowered `.pte` (our XnnpackBackend on Debian's XNNPACK)
* the official ExecuTorch runtime (pip `executorch`), on both `.pte` files
* ONNX Runtime on the same model exported to ONNX

    /opt/tv/bin/python bench/export_bench_models.py        # once: writes bench/models/
    /opt/tv/bin/python bench/compare.py                    # all models, 1 and 2 threads
    /opt/tv/bin/python bench/compare.py mobilenet_v2 --threads 2 --runs 50

Each figure is the median of `--runs` executions after warm-up (the official
portable path is slow, so it gets `--slow-runs`). Every runtime's output is
checked against PyTorch eager (max |diff| / max |eager| printed as `err`);
a runtime that fails or disagrees is reported, not hidden. With `--rounds R`
every runtime runs R times, interleaved so that a burst of load on a shared
machine hits all of them, and the lowest of its R medians is reported. Each runtime runs
in its own process (the official thread pool is process-wide and must be
sized before any method loads). Prints a Markdown table; the ratios
compare our portable-only run with the official XNNPACK-delegated one
(issue 10's goal: <= 1.5x) and with the official portable one.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS_DIR = os.path.join(HERE, "models")
MODELS = ["mobilenet_v2", "resnet18", "efficientnet_b0", "transformer"]

# Runs inside a child process: python -c CHILD <json args>.
CHILD = r"""
import json, sys, time
import numpy as np
a = json.loads(sys.argv[1])
x = np.load(a["input"])
if a["kind"] == "ort":
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = a["threads"]
    so.inter_op_num_threads = 1
    s = ort.InferenceSession(a["model"], so, providers=["CPUExecutionProvider"])
    name = s.get_inputs()[0].name
    run = lambda: s.run(None, {name: x})[0]
else:
    import torch
    from executorch.extension.pybindings import portable_lib
    portable_lib._unsafe_reset_threadpool(a["threads"])
    from executorch.runtime import Runtime
    m = Runtime.get().load_program(a["model"]).load_method("forward")
    t = torch.from_numpy(x)
    run = lambda: m.execute([t])[0].numpy()
for _ in range(a["warmup"]):
    out = run()
times = []
for _ in range(a["runs"]):
    t0 = time.perf_counter()
    out = run()
    times.append(time.perf_counter() - t0)
times.sort()
np.save(a["output"], np.asarray(out))
print("MEDIAN_MS %.4f" % (1e3 * times[len(times) // 2]))
"""


def rel_err(out, expected):
    scale = float(np.max(np.abs(expected))) or 1.0
    return float(np.max(np.abs(out.astype(np.float64) - expected))) / scale


def run_ours(runner, pte, inp, threads, runs, env_extra=None):
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, **(env_extra or {}))
        cmd = [runner, "--model_path=" + pte, "--input=" + inp, "--num_executions=%d" % runs,
               "--threads=%d" % threads, "--output_dir=" + d]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        m = re.search(r"median ([0-9.]+) ms", p.stdout)
        if p.returncode != 0 or not m:
            return None, None, (p.stdout + p.stderr).strip().splitlines()[-1:]
        return float(m.group(1)), np.load(os.path.join(d, "output_0.npy")), None


def run_child(kind, model, inp, threads, runs, warmup):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.npy")
        args = json.dumps(dict(kind=kind, model=model, input=inp, threads=threads, runs=runs,
                               warmup=warmup, output=out))
        p = subprocess.run([sys.executable, "-c", CHILD, args], capture_output=True, text=True)
        m = re.search(r"MEDIAN_MS ([0-9.]+)", p.stdout)
        if p.returncode != 0 or not m:
            return None, None, (p.stdout + p.stderr).strip().splitlines()[-1:]
        return float(m.group(1)), np.load(out), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*", default=MODELS)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--slow-runs", type=int, default=3, help="runs of the official portable path")
    ap.add_argument("--runner", default=os.path.join(ROOT, "build", "examples", "executor_runner",
                                                     "executor_runner"))
    ap.add_argument("--rounds", type=int, default=1, help="interleaved rounds; best median kept")
    ap.add_argument("--skip-official-portable", action="store_true")
    args = ap.parse_args()

    rows = []
    for model in args.models:
        pte = os.path.join(MODELS_DIR, model + ".pte")
        xpte = os.path.join(MODELS_DIR, model + "_xnnpack.pte")
        onnx = os.path.join(MODELS_DIR, model + ".onnx")
        inp = os.path.join(MODELS_DIR, model + "_in.npy")
        if not os.path.exists(pte):
            sys.exit("missing %s: run bench/export_bench_models.py first" % pte)
        expected = np.load(os.path.join(MODELS_DIR, model + "_out.npy")).astype(np.float64)
        for t in args.threads:
            cells = {}
            runs = [
                ("ours", lambda: run_ours(args.runner, pte, inp, t, args.runs)),
                ("ours_xnnpack", lambda: run_ours(args.runner, xpte, inp, t, args.runs)),
                ("official_xnnpack", lambda: run_child("et", xpte, inp, t, args.runs, 5)),
                ("ort", lambda: run_child("ort", onnx, inp, t, args.runs, 5)),
            ]
            if not args.skip_official_portable:
                runs.append(("official_portable",
                             lambda: run_child("et", pte, inp, t, args.slow_runs, 1)))
            for _ in range(args.rounds):
                for name, fn in runs:
                    ms, out, err = fn()
                    if ms is None:
                        cells[name] = ("failed: %s" % (err[0] if err else "?"), None)
                    elif name not in cells or (cells[name][1] is not None and ms < cells[name][0]):
                        cells[name] = (ms, rel_err(np.asarray(out).reshape(expected.shape), expected))
                    print("%s t=%d %s: %s" % (model, t, name, cells[name]), file=sys.stderr)
            rows.append((model, t, cells))

    def fmt(c):
        ms, err = c
        if err is None:
            return str(ms)
        return "%.2f (err %.0e)" % (ms, err)

    def ratio(a, b):
        return "%.2fx" % (a[0] / b[0]) if a[1] is not None and b[1] is not None else "-"

    cols = ["ours", "ours_xnnpack", "official_xnnpack", "ort"]
    if not args.skip_official_portable:
        cols.append("official_portable")
    print("| model | threads | " + " | ".join(c + " ms" for c in cols) +
          " | ours / official_xnnpack | official_portable / ours |")
    print("|" + "---|" * (len(cols) + 4))
    for model, t, cells in rows:
        line = "| %s | %d | " % (model, t) + " | ".join(fmt(cells[c]) for c in cols)
        line += " | " + ratio(cells["ours"], cells["official_xnnpack"])
        line += " | " + (ratio(cells["official_portable"], cells["ours"])
                         if "official_portable" in cells else "-") + " |"
        print(line)


if __name__ == "__main__":
    main()

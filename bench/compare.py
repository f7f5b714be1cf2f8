#!/usr/bin/env python3
"""Side-by-side speed of the same models on four runtimes, at 1 and 2 threads:

* ours, portable-only `.pte` (our optimized kernels; no delegate)
* ours, XNNPACK-lowered `.pte` (our XnnpackBackend on Debian's XNNPACK)
* ours, Vulkan-lowered `.pte` (our VulkanBackend), when `<model>_vulkan.pte` exists
  (`export_bench_models.py --forms vulkan`): on Mesa's lavapipe (a CPU driver,
  selected explicitly; `--vulkan-native` keeps the loader's choice), `--vulkan-runs`
  executions (lavapipe is slow); its thread count is lavapipe's own, not --threads
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

`--fp16` adds the model cast to fp16 and lowered to XNNPACK
(`export_bench_models.py --fp16`) on ours and on the official runtime
(columns `ours_xnnpack_fp16`, `official_xnnpack_fp16`; `err` against eager
fp16, so it shows fp16 rounding, not a fault). `--official-python` runs the
official runtime's children under another interpreter (e.g.
/opt/tv213/bin/python, whose executorch executes where /opt/tv's does not).
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
import json, resource, sys, time
import numpy as np
a = json.loads(sys.argv[1])
x = np.load(a["input"])
if a["kind"] == "ort":
    import onnxruntime as ort
else:
    import torch
    from executorch.extension.pybindings import portable_lib
    from executorch.runtime import Runtime
# Peak RSS with the interpreter and the runtime's libraries loaded, before the model.
print("BASE_RSS_KB %d" % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
t0 = time.perf_counter()
if a["kind"] == "ort":
    so = ort.SessionOptions()
    so.intra_op_num_threads = a["threads"]
    so.inter_op_num_threads = 1
    s = ort.InferenceSession(a["model"], so, providers=["CPUExecutionProvider"])
    name = s.get_inputs()[0].name
    run = lambda: s.run(None, {name: x})[0]
else:
    portable_lib._unsafe_reset_threadpool(a["threads"])
    m = Runtime.get().load_program(a["model"]).load_method("forward")
    t = torch.from_numpy(x)
    run = lambda: m.execute([t])[0].numpy()
print("LOAD_MS %.4f" % (1e3 * (time.perf_counter() - t0)))
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


def run_measured(cmd, env=None):
    """Runs cmd; returns (returncode, stdout + stderr, stdout, peak RSS in MB of that process)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        o, e = out.read(), err.read()
        return p.returncode, o + e, o, usage.ru_maxrss / 1024.0


# Each run_* returns (median ms, output, error lines, extra) with extra = dict(load_ms, rss_mb,
# base_rss_mb): load = program + method load (ours: printed by the runner; official / ORT:
# load_program + load_method / InferenceSession), rss = the process's peak RSS, base = the
# child interpreter's peak before the model (its Python, torch / onnxruntime libraries).
LAVAPIPE_ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"


def run_ours(runner, pte, inp, threads, runs, env_extra=None):
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, **(env_extra or {}))
        cmd = [runner, "--model_path=" + pte, "--input=" + inp, "--num_executions=%d" % runs,
               "--threads=%d" % threads, "--output_dir=" + d]
        rc, text, stdout, rss = run_measured(cmd, env)
        m = re.search(r"median ([0-9.]+) ms", stdout)
        load = re.search(r"\) in ([0-9.]+) ms", stdout)
        if rc != 0 or not m:
            return None, None, text.strip().splitlines()[-1:], None
        first = re.search(r"first ([0-9.]+) ms", stdout)
        extra = dict(load_ms=float(load.group(1)) if load else None, rss_mb=rss, base_rss_mb=0.0,
                     first_ms=float(first.group(1)) if first else None)
        return float(m.group(1)), np.load(os.path.join(d, "output_0.npy")), None, extra


def run_child(kind, model, inp, threads, runs, warmup, python=None):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.npy")
        args = json.dumps(dict(kind=kind, model=model, input=inp, threads=threads, runs=runs,
                               warmup=warmup, output=out))
        rc, text, stdout, rss = run_measured([python or sys.executable, "-c", CHILD, args])
        m = re.search(r"MEDIAN_MS ([0-9.]+)", stdout)
        if rc != 0 or not m:
            return None, None, text.strip().splitlines()[-1:], None
        load = float(re.search(r"LOAD_MS ([0-9.]+)", stdout).group(1))
        base = int(re.search(r"BASE_RSS_KB ([0-9]+)", stdout).group(1)) / 1024.0
        return float(m.group(1)), np.load(out), None, dict(load_ms=load, rss_mb=rss,
                                                           base_rss_mb=base)


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
    ap.add_argument("--fp16", action="store_true",
                    help="also the fp16 XNNPACK program, ours and official")
    ap.add_argument("--official-python", default=sys.executable,
                    help="interpreter for the official runtime's children")
    ap.add_argument("--vulkan-runs", type=int, default=5, help="runs of our Vulkan delegate")
    ap.add_argument("--vulkan-native", action="store_true",
                    help="let the Vulkan loader pick the driver instead of lavapipe")
    args = ap.parse_args()
    et_py = args.official_python
    vk_env = {} if args.vulkan_native else dict(VK_ICD_FILENAMES=LAVAPIPE_ICD,
                                                 VK_DRIVER_FILES=LAVAPIPE_ICD)
    have_vulkan = False

    rows = []
    extras = {}
    for model in args.models:
        pte = os.path.join(MODELS_DIR, model + ".pte")
        xpte = os.path.join(MODELS_DIR, model + "_xnnpack.pte")
        vpte = os.path.join(MODELS_DIR, model + "_vulkan.pte")
        onnx = os.path.join(MODELS_DIR, model + ".onnx")
        inp = os.path.join(MODELS_DIR, model + "_in.npy")
        if not os.path.exists(pte):
            sys.exit("missing %s: run bench/export_bench_models.py first" % pte)
        expected = np.load(os.path.join(MODELS_DIR, model + "_out.npy")).astype(np.float64)
        hpte = os.path.join(MODELS_DIR, model + "_xnnpack_fp16.pte")
        hinp = os.path.join(MODELS_DIR, model + "_in_fp16.npy")
        if args.fp16:
            if not os.path.exists(hpte):
                sys.exit("missing %s: run bench/export_bench_models.py --fp16 first" % hpte)
            expected_fp16 = np.load(os.path.join(MODELS_DIR, model + "_out_fp16.npy"))
            expected_fp16 = expected_fp16.astype(np.float64)
        for t in args.threads:
            cells = {}
            runs = [
                ("ours", lambda: run_ours(args.runner, pte, inp, t, args.runs)),
                ("ours_xnnpack", lambda: run_ours(args.runner, xpte, inp, t, args.runs)),
                ("official_xnnpack", lambda: run_child("et", xpte, inp, t, args.runs, 5, et_py)),
                ("ort", lambda: run_child("ort", onnx, inp, t, args.runs, 5)),
            ]
            if args.fp16:
                runs.append(("ours_xnnpack_fp16",
                             lambda: run_ours(args.runner, hpte, hinp, t, args.runs)))
                runs.append(("official_xnnpack_fp16",
                             lambda: run_child("et", hpte, hinp, t, args.runs, 5, et_py)))
            if os.path.exists(vpte):
                have_vulkan = True
                runs.append(("ours_vulkan", lambda: run_ours(args.runner, vpte, inp, t,
                                                             args.vulkan_runs, vk_env)))
            if not args.skip_official_portable:
                runs.append(("official_portable",
                             lambda: run_child("et", pte, inp, t, args.slow_runs, 1, et_py)))
            for _ in range(args.rounds):
                for name, fn in runs:
                    ms, out, err, extra = fn()
                    want = expected_fp16 if name.endswith("_fp16") else expected
                    if ms is None:
                        cells[name] = ("failed: %s" % (err[0] if err else "?"), None)
                    elif name not in cells or (cells[name][1] is not None and ms < cells[name][0]):
                        out = np.asarray(out).astype(np.float64).reshape(want.shape)
                        cells[name] = (ms, rel_err(out, want))
                        extras[(model, t, name)] = extra
                    print("%s t=%d %s: %s %s" % (model, t, name, cells[name], extra),
                          file=sys.stderr)
            rows.append((model, t, cells))

    def fmt(c):
        ms, err = c
        if err is None:
            return str(ms)
        return "%.2f (err %.0e)" % (ms, err)

    def ratio(a, b):
        return "%.2fx" % (a[0] / b[0]) if a[1] is not None and b[1] is not None else "-"

    cols = ["ours", "ours_xnnpack", "official_xnnpack", "ort"]
    if args.fp16:
        cols += ["ours_xnnpack_fp16", "official_xnnpack_fp16"]
    if have_vulkan:
        cols.append("ours_vulkan")
    if not args.skip_official_portable:
        cols.append("official_portable")
    fp16_ratio = " | ours_xnnpack_fp16 / official_xnnpack_fp16" if args.fp16 else ""
    print("| model | threads | " + " | ".join(c + " ms" for c in cols) +
          " | ours / official_xnnpack | official_portable / ours" + fp16_ratio + " |")
    print("|" + "---|" * (len(cols) + 4 + (1 if args.fp16 else 0)))
    for model, t, cells in rows:
        line = "| %s | %d | " % (model, t) + " | ".join(fmt(cells[c]) if c in cells else "-"
                                                        for c in cols)
        line += " | " + ratio(cells["ours"], cells["official_xnnpack"])
        line += " | " + (ratio(cells["official_portable"], cells["ours"])
                         if "official_portable" in cells else "-")
        if args.fp16:
            line += " | " + ratio(cells["ours_xnnpack_fp16"], cells["official_xnnpack_fp16"])
        print(line + " |")


    print()
    print("Load (program + method, ms) and peak RSS (MB; for the Python-hosted runtimes also the")
    print("interpreter's peak before loading the model, so the model's share is the difference):")
    print()
    print("| model | threads | " + " | ".join(c + " load ms / peak RSS MB" for c in cols) + " |")
    print("|" + "---|" * (len(cols) + 2))
    for model, t, cells in rows:
        parts = []
        for c in cols:
            e = extras.get((model, t, c))
            if e is None:
                parts.append("-")
                continue
            load = "%.1f" % e["load_ms"] if e["load_ms"] is not None else "?"
            rss = "%.0f" % e["rss_mb"]
            if e["base_rss_mb"]:
                rss += " (base %.0f)" % e["base_rss_mb"]
            if c == "ours_vulkan" and e.get("first_ms") is not None:
                rss += " (first execute %.1f ms)" % e["first_ms"]
            parts.append("%s / %s" % (load, rss))
        print("| %s | %d | " % (model, t) + " | ".join(parts) + " |")


if __name__ == "__main__":
    main()
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

Issue 22 columns (`print_issue22_tables`): load + init, the first execute against the
steady median, the peak RSS of the model's share, and "ours best path / faster peer"
(the lower of our two paths over the lower of the official XNNPACK run and ONNX Runtime;
the target is <= 0.8) per model and thread count. Each child runs under its own
interpreter: the official runtime's Method.execute needs the torch it was built against
(`--official-python`, default /opt/tv213/bin/python), ONNX Runtime lives in /opt/tv
(`--ort-python`). `--json FILE` keeps every measured figure (rewritten after each model).
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
# The whole issue-22 benchmark set (bench/export_bench_models.py makes every one).
ISSUE22_MODELS = MODELS + [
    "mobilenet_v3_small", "mobilenet_v3_large", "resnet50", "regnet_y_400mf", "densenet121",
    "vit_small", "decoder_lm", "wav2letter", "mobilenet_v2_int8", "mobilenet_v2_dq",
    "transformer_int8", "transformer_dq"]


def default_python(path):
    """`path` when that interpreter exists, else the one running this script."""
    return path if os.path.exists(path) else sys.executable

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
c0 = time.process_time()
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
print("LOAD_CPU_MS %.4f" % (1e3 * (time.process_time() - c0)))
c0 = time.process_time()
t0 = time.perf_counter()
out = run()
print("FIRST_MS %.4f" % (1e3 * (time.perf_counter() - t0)))
print("FIRST_CPU_MS %.4f" % (1e3 * (time.process_time() - c0)))
for _ in range(a["warmup"]):
    out = run()
times = []
cpu = []
for _ in range(a["runs"]):
    c0 = time.process_time()
    t0 = time.perf_counter()
    out = run()
    times.append(time.perf_counter() - t0)
    cpu.append(time.process_time() - c0)
times.sort()
cpu.sort()
np.save(a["output"], np.asarray(out))
print("MEDIAN_MS %.4f" % (1e3 * times[len(times) // 2]))
print("CPU_MS %.4f" % (1e3 * cpu[len(cpu) // 2]))
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
        extra = dict(load_ms=float(load.group(1)) if load else None, rss_mb=rss, base_rss_mb=0.0)
        extra.update(runner_extras(stdout))
        # The runner's own peak (VmHWM): wait4's ru_maxrss also counts this script's
        # resident set, which Linux carries into the child across fork and exec.
        if extra.get("peak_rss_mb"):
            extra["rss_mb"] = extra["peak_rss_mb"]
        return float(m.group(1)), np.load(os.path.join(d, "output_0.npy")), None, extra


def runner_extras(stdout):
    """executor_runner's first execution and its RSS after load / after the runs (MiB)."""
    extra = {}
    m = re.search(r"first execution ([0-9.]+) ms(?: \(cpu time ([0-9.]+) ms\))?", stdout)
    if m:
        extra["first_ms"] = float(m.group(1))
        if m.group(2):
            extra["first_cpu_ms"] = float(m.group(2))
    m = re.search(r"load cpu time ([0-9.]+) ms", stdout)
    if m:
        extra["load_cpu_ms"] = float(m.group(1))
    m = re.search(r"cpu time per execution: median ([0-9.]+) ms", stdout)
    if m:
        extra["cpu_ms"] = float(m.group(1))
    m = re.search(r"memory after load: peak RSS ([0-9.]+) MiB", stdout)
    if m:
        extra["init_peak_mb"] = float(m.group(1))
    m = re.search(r"memory after execution: peak RSS ([0-9.]+) MiB, RSS ([0-9.]+) MiB", stdout)
    if m:
        extra["peak_rss_mb"] = float(m.group(1))
        extra["steady_rss_mb"] = float(m.group(2))
    return extra


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
        first = re.search(r"FIRST_MS ([0-9.]+)", stdout)
        extra = dict(load_ms=load, rss_mb=rss, base_rss_mb=base,
                     first_ms=float(first.group(1)) if first else None)
        for key, tag in (("cpu_ms", "CPU_MS"), ("load_cpu_ms", "LOAD_CPU_MS"),
                         ("first_cpu_ms", "FIRST_CPU_MS")):
            found = re.search(r"(?m)^%s ([0-9.]+)" % tag, stdout)
            if found:
                extra[key] = float(found.group(1))
        return float(m.group(1)), np.load(out), None, extra


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*", default=MODELS,
                    help="models in bench/models/; 'all' = the issue-22 set")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--slow-runs", type=int, default=3, help="runs of the official portable path")
    ap.add_argument("--runner", default=os.path.join(ROOT, "build", "examples", "executor_runner",
                                                     "executor_runner"))
    ap.add_argument("--rounds", type=int, default=1, help="interleaved rounds; best median kept")
    ap.add_argument("--skip-official-portable", action="store_true")
    ap.add_argument("--fp16", action="store_true",
                    help="also the fp16 XNNPACK program, ours and official")
    ap.add_argument("--vulkan-runs", type=int, default=5, help="runs of our Vulkan delegate")
    ap.add_argument("--vulkan-native", action="store_true",
                    help="let the Vulkan loader pick the driver instead of lavapipe")
    ap.add_argument("--official-python", default=default_python("/opt/tv213/bin/python"),
                    help="interpreter for the official runtime's child (its torch must match)")
    ap.add_argument("--ort-python", default=default_python("/opt/tv/bin/python"),
                    help="interpreter with onnxruntime for the ONNX Runtime child")
    ap.add_argument("--json", help="write every measured figure here (after each model)")
    ap.add_argument("--from-json", nargs="+", metavar="FILE",
                    help="measure nothing: print the tables of earlier --json files, in order")
    args = ap.parse_args()
    if args.models == ["all"]:
        args.models = ISSUE22_MODELS
    et_py = args.official_python
    vk_env = {} if args.vulkan_native else dict(VK_ICD_FILENAMES=LAVAPIPE_ICD,
                                                 VK_DRIVER_FILES=LAVAPIPE_ICD)
    have_vulkan = False

    rows = []
    extras = {}
    if args.from_json:
        rows, extras = load_json(args.from_json)
        args.models = []
        args.skip_official_portable = not any(
            "official_portable" in cells for _, _, cells in rows)
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
                ("official_xnnpack", lambda: run_child("et", xpte, inp, t, args.runs, 5,
                                                       args.official_python)),
                ("ort", lambda: run_child("ort", onnx, inp, t, args.runs, 5, args.ort_python)),
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
                             lambda: run_child("et", pte, inp, t, args.slow_runs, 1,
                                               args.official_python)))
            for _ in range(args.rounds):
                for name, fn in runs:
                    ms, out, err, extra = fn()
                    want = expected_fp16 if name.endswith("_fp16") else expected
                    if ms is None:
                        if name not in cells or cells[name][1] is None:
                            cells[name] = ("failed: %s" % (err[0] if err else "?"), None)
                    elif name not in cells or (cells[name][1] is not None and ms < cells[name][0]):
                        before = extras.get((model, t, name))
                        out = np.asarray(out).astype(np.float64).reshape(want.shape)
                        cells[name] = (ms, rel_err(out, want))
                        extras[(model, t, name)] = extra
                        keep_best_cpu(extra, before)
                    else:
                        keep_best_cpu(extras[(model, t, name)], extra)
                    print("%s t=%d %s: %s %s" % (model, t, name, cells[name], extra),
                          file=sys.stderr)
            rows.append((model, t, cells))
        if args.json:
            save_json(args.json, rows, extras)

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

    print_issue22_tables(rows, extras)


def keep_best_cpu(extra, other):
    """extra["best_cpu_ms"] / ["best_load_cpu_ms"]: the lowest CPU-time execute median and
    load of the rounds (kept apart from the round whose wall median was best); `other` is
    another round's extra (or None)."""
    other = other or {}
    for best, key in (("best_cpu_ms", "cpu_ms"), ("best_load_cpu_ms", "load_cpu_ms")):
        have = [c for c in (extra.get(key), extra.get(best), other.get(key), other.get(best))
                if c]
        if have:
            extra[best] = min(have)


def save_json(path, rows, extras):
    """Every figure so far: per model and thread count, each runtime's median ms, error and
    extras (load, first execute, RSS)."""
    data = []
    for model, t, cells in rows:
        entry = dict(model=model, threads=t, runtimes={})
        for name, (ms, err) in cells.items():
            e = dict(extras.get((model, t, name)) or {})
            if err is None:
                e["failed"] = ms
            else:
                e.update(median_ms=ms, err=err)
            entry["runtimes"][name] = e
        data.append(entry)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)


def load_json(paths):
    """(rows, extras) as main() builds them, from save_json files."""
    rows, extras = [], {}
    for path in paths:
        for entry in json.load(open(path)):
            model, t = entry["model"], entry["threads"]
            cells = {}
            for name, e in entry["runtimes"].items():
                if "failed" in e:
                    cells[name] = (e["failed"], None)
                    continue
                cells[name] = (e["median_ms"], e["err"])
                extras[(model, t, name)] = {k: v for k, v in e.items()
                                            if k not in ("median_ms", "err")}
            rows.append((model, t, cells))
    return rows, extras


def model_share_mb(e):
    """Peak RSS of the model's share: the Python-hosted runtimes' peak less the interpreter's
    peak before the model; ours is the whole runner process (an upper bound)."""
    return e["rss_mb"] - (e.get("base_rss_mb") or 0.0)


def print_issue22_tables(rows, extras):
    """The issue-22 view: ours best path against the faster peer, load + init, first execute
    against the steady median, peak RSS of the model's share, and 2-thread scaling."""
    ours_cols = ["ours", "ours_xnnpack"]
    peer_cols = ["official_xnnpack", "ort"]

    def ok(cells, c):
        return c in cells and cells[c][1] is not None

    def best(cells, names):
        have = [(cells[c][0], c) for c in names if ok(cells, c)]
        return min(have) if have else (None, None)

    print()
    print("Issue 22: ours best path / faster peer (target <= 0.8), load + init, first execute / "
          "steady median, peak RSS of the model's share (MB; ours: whole process):")
    print()
    cols = ours_cols + peer_cols
    print("| model | threads | ours best (path) ms | faster peer ms | ours / peer | " +
          " | ".join(c + " load ms / first ms (x steady) / RSS MB" for c in cols) +
          " | ours load / official load | ours init peak / steady RSS |")
    print("|" + "---|" * (len(cols) + 7))
    by_key = {}
    for model, t, cells in rows:
        by_key[(model, t)] = cells
        ours_ms, ours_c = best(cells, ours_cols)
        peer_ms, peer_c = best(cells, peer_cols)
        ratio = "%.2f" % (ours_ms / peer_ms) if ours_ms and peer_ms else "-"
        parts = []
        for c in cols:
            e = extras.get((model, t, c))
            if e is None or not ok(cells, c):
                parts.append("failed" if c in cells else "-")
                continue
            load = "%.1f" % e["load_ms"] if e.get("load_ms") is not None else "?"
            first = e.get("first_ms")
            first_s = "%.2f (%.2fx)" % (first, first / cells[c][0]) if first else "?"
            parts.append("%s / %s / %.0f" % (load, first_s, model_share_mb(e)))
        load_ratio = "-"
        official = extras.get((model, t, "official_xnnpack"))
        mine = extras.get((model, t, ours_c)) if ours_c else None
        if official and mine and ok(cells, "official_xnnpack") and mine.get("load_ms"):
            load_ratio = "%.2f (%s)" % (mine["load_ms"] / official["load_ms"], ours_c)
        rss_ratio = "-"
        if mine and mine.get("init_peak_mb") and mine.get("steady_rss_mb"):
            rss_ratio = "%.2f" % (mine["init_peak_mb"] / mine["steady_rss_mb"])
        print("| %s | %d | %s | %s | %s | %s | %s | %s |" % (
            model, t, "%.2f (%s)" % (ours_ms, ours_c) if ours_ms else "failed",
            "%.2f (%s)" % (peer_ms, peer_c) if peer_ms else "failed", ratio, " | ".join(parts),
            load_ratio, rss_ratio))

    print()
    print("CPU time per execute (process, all threads; best median of the rounds, ms): on a")
    print("loaded host the wall-time figures above include other processes' share, these do")
    print("not; at 1 thread they stand for the latency an idle machine would give:")
    print()
    print("| model | threads | " + " | ".join(c + " CPU ms" for c in cols) +
          " | ours best / faster peer (CPU) | " +
          " | ".join(c + " load CPU ms / first CPU x steady" for c in cols) +
          " | ours best path load / official load (CPU) |")
    print("|" + "---|" * (2 * len(cols) + 4))
    for model, t, cells in rows:
        cpu = {}
        for c in cols:
            e = extras.get((model, t, c))
            if e and ok(cells, c) and e.get("best_cpu_ms"):
                cpu[c] = e["best_cpu_ms"]
        ours = [(cpu[c], c) for c in ours_cols if c in cpu]
        peers = [cpu[c] for c in peer_cols if c in cpu]
        ratio = "%.2f" % (min(ours)[0] / min(peers)) if ours and peers else "-"
        loads = []
        for c in cols:
            e = extras.get((model, t, c)) or {}
            load = e.get("best_load_cpu_ms")
            first = e.get("first_cpu_ms")
            loads.append("%s / %s" % ("%.1f" % load if load else "?",
                                      "%.2fx" % (first / cpu[c]) if first and c in cpu
                                      else "?"))
        load_ratio = "-"
        official = (extras.get((model, t, "official_xnnpack")) or {}).get("best_load_cpu_ms")
        if ours and official:
            mine = (extras.get((model, t, min(ours)[1])) or {}).get("best_load_cpu_ms")
            if mine:
                load_ratio = "%.2f (%s)" % (mine / official, min(ours)[1])
        print("| %s | %d | " % (model, t) + " | ".join(
            "%.2f" % cpu[c] if c in cpu else "-" for c in cols) + " | %s | " % ratio +
            " | ".join(loads) + " | %s |" % load_ratio)

    scaling = [(m, c) for (m, t), c in by_key.items() if t == 1 and (m, 2) in by_key]
    if scaling:
        print()
        print("2-thread scaling (1-thread median / 2-thread median; target >= 1.8):")
        print()
        print("| model | " + " | ".join(cols) + " |")
        print("|" + "---|" * (len(cols) + 1))
        for model, c1 in scaling:
            c2 = by_key[(model, 2)]
            print("| %s | " % model + " | ".join(
                "%.2f" % (c1[c][0] / c2[c][0]) if ok(c1, c) and ok(c2, c) else "-"
                for c in cols) + " |")


if __name__ == "__main__":
    main()
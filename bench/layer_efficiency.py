#!/usr/bin/env python3
"""Where the time goes: our executor_runner's per-operator time on each benchmark model,
grouped by layer kind and set against the machine's limits (issue 22).

    /opt/tv/bin/python bench/layer_efficiency.py mobilenet_v2 resnet18 --threads 1 2
    /opt/tv/bin/python bench/layer_efficiency.py all --runs 20 --json /tmp/layers.json

For every model it runs `executor_runner --profile` on `bench/models/<m>.pte` (and
`<m>_xnnpack.pte` with `--xnnpack`), takes each instruction's median time over the runs
after the first, and sums the instructions by layer kind:

* conv 1x1, conv 3x3, conv depthwise, conv grouped (1 < groups < channels), conv other
  (other kernel sizes, 1-D convolutions, strided patch embeddings), linear/matmul
  (addmm, mm, bmm, linear with more than one row): compute-bound, rated in GFLOP/s
  (2 flops per multiply-add, from the shapes the trace records) against the FMA peak;
* linear M=1 (GEMV: a single-row product reads each weight once), elementwise, pooling,
  norm, softmax, copy/layout, quantize/dequantize: memory-bound, rated in GB/s (the bytes of every tensor argument: read once, the output written once)
  against the measured stream bandwidth, DRAM-sized arrays and 1 MiB ones (what an
  activation that stays in the caches sees); depthwise convolutions get both ratings;
* delegate: an XNNPACK delegate call is one block in our trace (the delegate does not
  report its nodes' times), so a delegated file shows only its total.

Limits come from `gemm_bench --benchmark_filter='FmaPeak|Bandwidth'` (per-thread CPU time,
so other processes on a shared machine do not lower them).

Clock (`--clock`): `cpu` (default) uses the process CPU time the trace records for each
call (`cpu_us`, all threads): on a shared machine the other processes do not add to it,
and the rates are per core-second, against one core's limits (at 2 threads, time a
worker spends waiting counts as lost efficiency). `wall` uses the wall time, against the
T-thread limits; on a loaded host it includes the other processes' share. Either way
each instruction's figure is its median over the runs after the first.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS_DIR = os.path.join(HERE, "models")
sys.path.insert(0, HERE)

COMPUTE_KINDS = ["conv 1x1", "conv 3x3", "conv depthwise", "conv grouped", "conv other",
                 "linear/matmul"]
MEMORY_KINDS = ["linear M=1 (GEMV)", "elementwise", "pooling", "norm", "softmax", "copy/layout",
                "quantize/dequantize"]
KINDS = COMPUTE_KINDS + MEMORY_KINDS + ["delegate", "other"]

DTYPE_BYTES = {"Float": 4, "Half": 2, "BFloat16": 2, "Double": 8, "Long": 8, "Int": 4,
               "Short": 2, "Char": 1, "Byte": 1, "Bool": 1}

ELEMENTWISE = {"add", "sub", "mul", "div", "clamp", "relu", "hardtanh", "sigmoid", "gelu",
               "hardswish", "hardsigmoid", "silu", "tanh", "exp", "neg", "sqrt", "rsqrt",
               "pow", "where", "eq", "ne", "lt", "gt", "le", "ge", "logical_not", "full_like",
               "abs", "maximum", "minimum", "erf", "leaky_relu", "elu", "reciprocal", "log",
               "scalar_tensor", "full", "bitwise_not", "logical_and", "logical_or"}
POOLING = {"max_pool2d_with_indices", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d",
           "mean", "sum", "amax", "max_pool1d", "avg_pool1d"}
NORM = {"native_batch_norm", "_native_batch_norm_legit_no_training",
        "_native_batch_norm_legit", "native_layer_norm", "native_group_norm"}
SOFTMAX = {"_softmax", "_log_softmax", "softmax", "log_softmax"}
COPY = {"permute_copy", "_clone_dim_order", "clone", "_to_dim_order_copy", "view_copy",
        "cat", "expand_copy", "select_copy", "split_with_sizes_copy", "split_copy",
        "squeeze_copy", "unsqueeze_copy", "alias_copy", "slice_copy", "transpose_copy",
        "t_copy", "_unsafe_view", "constant_pad_nd", "index_select", "embedding",
        "pixel_shuffle", "repeat", "unbind_copy", "stack", "flatten"}
LINEAR = {"addmm", "mm", "bmm", "linear", "matmul", "baddbmm"}
QUANT = {"quantize_per_tensor", "dequantize_per_tensor", "dequantize_per_channel",
         "quantize_per_channel", "choose_qparams", "choose_qparams_per_token_asymmetric",
         "quantize_per_token", "dequantize_per_token"}


def parse_tensors(text):
    """'[1, 3, 224, 224] Float, [16] Float' -> [((1, 3, 224, 224), 'Float'), ((16,), 'Float')]."""
    out = []
    for dims, dtype in re.findall(r"\[([0-9, ]*)\] (\w+)", text or ""):
        shape = tuple(int(d) for d in dims.split(",") if d.strip())
        out.append((shape, dtype))
    return out


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def nbytes(t):
    return numel(t[0]) * DTYPE_BYTES.get(t[1], 4)


def op_base(name):
    """'aten::convolution.out' -> 'convolution'; 'quantized_decomposed::x.out' -> 'x'."""
    return name.split("::")[-1].split(".")[0]


def classify(name, tensors, category):
    """(kind, flops, bytes) of one call from its name and tensor arguments (the out
    tensor last, as the trace records them)."""
    if category == "delegate":
        return "delegate", 0, sum(nbytes(t) for t in tensors)
    base = op_base(name)
    moved = sum(nbytes(t) for t in tensors)
    if base == "convolution" and len(tensors) >= 3:
        inp, weight, out = tensors[0], tensors[1], tensors[-1]
        # Fused kernels put other arguments first (a pre-activation batch norm's vectors,
        # a squeeze-excite scale): the weight is the first later tensor of out's rank whose
        # first size is out's channels, the input the largest one of that rank before it.
        rank = len(out[0])
        for i in range(1, len(tensors) - 1):
            t = tensors[i][0]
            if rank >= 3 and len(t) == rank and t[0] == out[0][1]:
                weight = tensors[i]
                inp = max((x for x in tensors[:i] if len(x[0]) == rank),
                          key=lambda x: numel(x[0]), default=inp)
                break
        if len(inp[0]) >= 3 and len(weight[0]) == len(inp[0]):
            cin = inp[0][1]
            cin_per_group = weight[0][1]
            groups = max(1, cin // max(1, cin_per_group))
            kernel = weight[0][2:]
            flops = 2 * numel(out[0]) * cin_per_group * numel(kernel)
            # Bytes of a depthwise layer: input, weights, output (what it has to move).
            conv_bytes = nbytes(inp) + nbytes(weight) + nbytes(out)
            if groups > 1 and groups == cin and cin_per_group == 1:
                return "conv depthwise", flops, conv_bytes
            if groups > 1:
                return "conv grouped", flops, conv_bytes
            if all(k == 1 for k in kernel):
                return "conv 1x1", flops, conv_bytes
            if len(kernel) == 2 and kernel[0] == 3 and kernel[1] == 3:
                return "conv 3x3", flops, conv_bytes
            return "conv other", flops, conv_bytes
    if base in LINEAR and len(tensors) >= 2:
        # K is the last dim of the first matrix operand: addmm's (bias, mat1, mat2) order
        # puts a 1-D bias first, the fused linear its input.
        mats = [t for t in tensors[:-1] if len(t[0]) >= 2]
        k = mats[0][0][-1] if mats else 1
        out = tensors[-1][0]
        flops = 2 * numel(out) * k
        if out and numel(out) == out[-1]:
            # One row: every weight is read once per product, so memory decides the speed.
            return "linear M=1 (GEMV)", flops, moved
        return "linear/matmul", flops, moved
    if base in ELEMENTWISE:
        return "elementwise", 0, moved
    if base in POOLING:
        return "pooling", 0, moved
    if base in NORM:
        return "norm", 0, moved
    if base in SOFTMAX:
        return "softmax", 0, moved
    if base in COPY:
        return "copy/layout", 0, moved
    if base in QUANT:
        return "quantize/dequantize", 0, moved
    return "other", 0, moved


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def machine_limits(gemm_bench):
    """{'fma': {1: GFLOP/s, 2: ...}, 'dram': {threads: GB/s}, 'cache': {threads: GB/s}, 'isa'}
    from gemm_bench (triad for DRAM, copy for 1 MiB arrays: the better of each)."""
    res = subprocess.run([gemm_bench, "--benchmark_filter=FmaPeak|Bandwidth",
                          "--benchmark_format=json", "--benchmark_repetitions=3"],
                         capture_output=True, text=True, check=True)
    data = json.loads(res.stdout)
    lim = {"fma": {}, "dram": {}, "cache": {}, "isa": "?"}
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        name = b["name"]
        threads = int(re.search(r"threads:(\d+)", name).group(1))
        if name.startswith("BM_FmaPeak"):
            lim["isa"] = b.get("label", "?")
            lim["fma"][threads] = max(lim["fma"].get(threads, 0.0), b["GFLOPS"] / 1e9
                                      if b["GFLOPS"] > 1e6 else b["GFLOPS"])
        elif name.startswith("BM_Bandwidth"):
            size = int(re.search(r"bytes:(\d+)", name).group(1))
            gbps = b["GBps"] / 1e9 if b["GBps"] > 1e6 else b["GBps"]
            key = "dram" if size > (64 << 20) else "cache"
            lim[key][threads] = max(lim[key].get(threads, 0.0), gbps)
    return lim


def profile(runner, pte, inp, threads, runs, clock, reduce=None):
    """Per instruction (index, name, category, tensors): its median time in ms over the runs
    after the first (or `reduce` of them), and the median execute time."""
    with tempfile.TemporaryDirectory() as d:
        trace = os.path.join(d, "trace.json")
        cmd = [runner, "--model_path=" + pte, "--num_executions=%d" % (runs + 1),
               "--threads=%d" % threads, "--profile=" + trace]
        if inp:
            cmd.append("--input=" + inp)
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            raise RuntimeError((res.stderr or res.stdout).strip().splitlines()[-1])
        events = json.load(open(trace))["traceEvents"]
    executes = [e for e in events if e["cat"] == "method"]
    # Split the instruction events into executions by the enclosing execute events.
    per_run = [[] for _ in executes]
    bounds = [(e["ts"], e["ts"] + e["dur"]) for e in executes]
    r = 0
    for e in events:
        if e["cat"] == "method":
            continue
        while r < len(bounds) and e["ts"] > bounds[r][1]:
            r += 1
        if r < len(bounds):
            per_run[r].append(e)
    def ms(e):
        return (e["args"]["cpu_us"] if clock == "cpu" else e["dur"]) / 1e3

    times = collections.OrderedDict()
    info = {}
    for run in per_run[1:]:
        for pos, e in enumerate(run):
            key = (pos, e["args"].get("instruction"))
            times.setdefault(key, []).append(ms(e))
            info[key] = (e["name"], e["cat"], e["args"].get("tensors", ""))
    calls = []
    for key, ts in times.items():
        name, cat, tensors = info[key]
        calls.append(dict(name=name, category=cat, tensors=tensors, ms=(reduce or median)(ts)))
    exec_ms = median([ms(e) for e in executes[1:]]) if len(executes) > 1 else None
    return calls, exec_ms


def summarize(calls, exec_ms, threads, lim, clock):
    kinds = collections.OrderedDict((k, dict(calls=0, ms=0.0, flops=0, bytes=0)) for k in KINDS)
    for c in calls:
        kind, flops, moved = classify(c["name"], parse_tensors(c["tensors"]), c["category"])
        c.update(kind=kind, flops=flops, bytes=moved)
        k = kinds[kind]
        k["calls"] += 1
        k["ms"] += c["ms"]
        k["flops"] += flops
        k["bytes"] += moved
    # CPU time: rates per core-second against one core's limits; wall: the T-thread limits.
    per = 1 if clock == "cpu" else threads
    peak = lim["fma"].get(per) or lim["fma"][1] * per
    dram = lim["dram"].get(per) or lim["dram"][1]
    cache = lim["cache"].get(per) or lim["cache"][1]
    total = sum(k["ms"] for k in kinds.values())
    for name, k in kinds.items():
        k["share"] = k["ms"] / total if total else 0.0
        sec = k["ms"] / 1e3
        k["gflops"] = k["flops"] / sec / 1e9 if sec and k["flops"] else None
        k["gbps"] = k["bytes"] / sec / 1e9 if sec and k["bytes"] else None
        k["pct_peak"] = k["gflops"] / peak if k["gflops"] else None
        k["pct_dram"] = k["gbps"] / dram if k["gbps"] else None
        k["pct_cache"] = k["gbps"] / cache if k["gbps"] else None
    return dict(kinds=kinds, total_ms=total, execute_ms=exec_ms, peak=peak, dram=dram,
                cache=cache)


def pct(x):
    return "%.0f%%" % (100 * x) if x is not None else "-"


def num(x, fmt="%.1f"):
    return fmt % x if x is not None else "-"


def print_model(model, threads, s, calls, top, clock):
    print()
    print("### %s, %d thread%s: execute %s ms %s time (ops sum %.2f ms)" % (
        model, threads, "" if threads == 1 else "s", num(s["execute_ms"], "%.2f"), clock,
        s["total_ms"]))
    print()
    print("Limits: FMA peak %.0f GFLOP/s, stream %.1f GB/s (DRAM) / %.1f GB/s (1 MiB arrays)."
          % (s["peak"], s["dram"], s["cache"]))
    print()
    print("| layer kind | calls | ms per run | share | GFLOP/s | % FMA peak | GB/s | "
          "% DRAM bw | % cache bw |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, k in s["kinds"].items():
        if not k["calls"]:
            continue
        compute = name in COMPUTE_KINDS
        mem = name in MEMORY_KINDS or name == "conv depthwise"
        flops_shown = compute or name == "linear M=1 (GEMV)"
        print("| %s | %d | %.3f | %s | %s | %s | %s | %s | %s |" % (
            name, k["calls"], k["ms"], pct(k["share"]),
            num(k["gflops"]) if flops_shown else "-", pct(k["pct_peak"]) if compute else "-",
            num(k["gbps"]) if mem else "-", pct(k["pct_dram"]) if mem else "-",
            pct(k["pct_cache"]) if mem else "-"))
    if top:
        print()
        print("Slowest calls:")
        print()
        print("| op | kind | tensors | ms | GFLOP/s | GB/s |")
        print("|---|---|---|---|---|---|")
        for c in sorted(calls, key=lambda c: -c["ms"])[:top]:
            sec = c["ms"] / 1e3
            print("| %s | %s | %s | %.3f | %s | %s |" % (
                c["name"], c["kind"], c["tensors"][:90], c["ms"],
                num(c["flops"] / sec / 1e9) if c["flops"] and sec else "-",
                num(c["bytes"] / sec / 1e9) if c["bytes"] and sec else "-"))


def print_summary(rows):
    """One line per model and thread count: each kind's share and efficiency."""
    print()
    print("## Summary: share of op time / efficiency (compute kinds: % of FMA peak; memory "
          "kinds: % of the 1 MiB-array stream bandwidth, as their activations stay in the caches; "
          "GEMV: % of the DRAM bandwidth; depthwise: % of FMA peak)")
    print()
    shown = [k for k in KINDS if any(s["kinds"][k]["calls"] for _, _, _, s in rows)]
    print("| model | file | threads | execute ms | " + " | ".join(shown) + " |")
    print("|" + "---|" * (len(shown) + 4))
    for model, path, threads, s in rows:
        cells = []
        for k in shown:
            d = s["kinds"][k]
            if not d["calls"]:
                cells.append("-")
                continue
            # A single-row product streams its weights from DRAM / L3: the DRAM figure.
            eff = (d["pct_peak"] if k in COMPUTE_KINDS else
                   d["pct_dram"] if k == "linear M=1 (GEMV)" else d["pct_cache"])
            cells.append("%s / %s" % (pct(d["share"]), pct(eff)) if eff is not None
                         else pct(d["share"]))
        print("| %s | %s | %d | %s | " % (model, path, threads, num(s["execute_ms"], "%.2f")) +
              " | ".join(cells) + " |")
    # Over the whole set, per thread count: each kind's total time and overall rate.
    print()
    print("All models together: ms per run summed over the models, GFLOP/s or GB/s overall:")
    print()
    print("| threads | " + " | ".join(shown) + " |")
    print("|" + "---|" * (len(shown) + 1))
    for threads in sorted({t for _, _, t, _ in rows}):
        cells = []
        for k in shown:
            ms = sum(s["kinds"][k]["ms"] for _, _, t, s in rows if t == threads)
            flops = sum(s["kinds"][k]["flops"] for _, _, t, s in rows if t == threads)
            moved = sum(s["kinds"][k]["bytes"] for _, _, t, s in rows if t == threads)
            if not ms:
                cells.append("-")
            elif k in COMPUTE_KINDS:
                cells.append("%.1f ms, %.0f GFLOP/s" % (ms, flops / ms / 1e6))
            else:
                cells.append("%.1f ms, %.1f GB/s" % (ms, moved / ms / 1e6))
        print("| %d | " % threads + " | ".join(cells) + " |")


def main():
    from compare import ISSUE22_MODELS
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*", default=["all"])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--runs", type=int, default=10, help="profiled runs after the first")
    ap.add_argument("--xnnpack", action="store_true",
                    help="also profile <m>_xnnpack.pte (one delegate block per call)")
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                    help="process CPU time (default; per core-second) or wall time")
    ap.add_argument("--top", type=int, default=5, help="slowest calls listed per model")
    ap.add_argument("--runner", default=os.path.join(ROOT, "build", "examples", "executor_runner",
                                                     "executor_runner"))
    ap.add_argument("--gemm-bench", default=os.path.join(ROOT, "build", "gemm_bench"))
    ap.add_argument("--limits", help="JSON file of the limits (measured once and written "
                                     "there when missing)")
    ap.add_argument("--json", help="write every figure here")
    ap.add_argument("--from-json", nargs="+", metavar="FILE",
                    help="profile nothing: print the summary of earlier --json files")
    args = ap.parse_args()
    if args.from_json:
        rows = []
        for path in args.from_json:
            for r in json.load(open(path))["rows"]:
                rows.append((r["model"], r["file"], r["threads"],
                             dict(kinds=r["kinds"], execute_ms=r["execute_ms"])))
        print_summary(rows)
        return
    models = ISSUE22_MODELS if args.models == ["all"] else args.models

    if args.limits and os.path.exists(args.limits):
        lim = json.load(open(args.limits))
        for key in ("fma", "dram", "cache"):
            lim[key] = {int(t): v for t, v in lim[key].items()}
    else:
        lim = machine_limits(args.gemm_bench)
        if args.limits:
            json.dump(lim, open(args.limits, "w"), indent=1)
    print("Machine limits (gemm_bench, %s): FMA peak %s GFLOP/s; stream DRAM %s GB/s; "
          "1 MiB arrays %s GB/s (by thread count)" % (
              lim["isa"], {t: round(v, 1) for t, v in sorted(lim["fma"].items())},
              {t: round(v, 1) for t, v in sorted(lim["dram"].items())},
              {t: round(v, 1) for t, v in sorted(lim["cache"].items())}))

    rows = []
    dump = []
    for model in models:
        inp = os.path.join(MODELS_DIR, model + "_in.npy")
        files = [model + ".pte"] + ([model + "_xnnpack.pte"] if args.xnnpack else [])
        for f in files:
            pte = os.path.join(MODELS_DIR, f)
            if not os.path.exists(pte):
                print("\n%s: missing (run bench/export_bench_models.py)" % pte)
                continue
            for t in args.threads:
                try:
                    calls, exec_ms = profile(args.runner, pte, inp, t, args.runs, args.clock)
                except RuntimeError as e:
                    print("\n%s, %d threads: failed: %s" % (f, t, e))
                    continue
                s = summarize(calls, exec_ms, t, lim, args.clock)
                print_model(f, t, s, calls, args.top, args.clock)
                rows.append((model, f, t, s))
                dump.append(dict(model=model, file=f, threads=t, clock=args.clock,
                                 execute_ms=exec_ms,
                                 total_ms=s["total_ms"], kinds=s["kinds"]))
                sys.stdout.flush()
                if args.json:
                    json.dump(dict(limits=lim, rows=dump), open(args.json, "w"), indent=1)
    print_summary(rows)


if __name__ == "__main__":
    main()

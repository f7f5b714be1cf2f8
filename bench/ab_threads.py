#!/usr/bin/env python3
"""Interleaved A/B of executor_runner builds at 1 and 2 threads, per operator, for the 2-thread
scaling work (issue 22): wall time of the best execution and the process CPU time of that same
execution, summed per operator kind from the runner's --profile trace.

    python3 bench/ab_threads.py --bins old=build-old/examples/executor_runner/executor_runner \\
        new=build/examples/executor_runner/executor_runner \\
        --models densenet121 resnet50 resnet18 resnet50_xnnpack --rounds 25

Every round runs every (model, threads, build) once (--runs executions, the first dropped)
and records the load average and the cross-core round trip of bench/core_pingpong.cpp
(built on first use). On a shared host other processes and the placement of the virtual CPUs
change 2-thread wall time by up to 2x, so the summary keeps the best over the rounds: per
build, the fastest execution (and its CPU time), and per operator kind the smallest per-run
sum. CPU(2 threads) / CPU(1 thread) of the best executions is the figure the issue targets
(1.0: the second thread adds no work, only speed).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def pingpong():
    exe = os.path.join(tempfile.gettempdir(), "etr_core_pingpong")
    if not os.path.exists(exe):
        subprocess.run(["c++", "-O2", "-pthread", "-o", exe, os.path.join(HERE, "core_pingpong.cpp")],
                       check=True)
    return float(subprocess.run([exe], capture_output=True, text=True, check=True).stdout)


def kind_of(op):
    name = op["name"].replace("aten::", "").replace(".out", "")
    if "conv" in name:
        try:
            weight = op["args"]["tensors"].split("Float, [")[1].split("]")[0]
            name += " k" + weight.split(",", 2)[2].replace(" ", "")
        except (IndexError, KeyError):
            pass
    return name


def run_once(runner, model, threads, runs, trace):
    inp = os.path.join(HERE, "models", model.replace("_xnnpack", "") + "_in.npy")
    subprocess.run([runner, "--model_path=" + os.path.join(HERE, "models", model + ".pte"),
                    "--input=" + inp, "--num_executions=%d" % runs, "--threads=%d" % threads,
                    "--profile=" + trace], check=True, capture_output=True, timeout=300)
    events = json.load(open(trace))["traceEvents"]
    executes = [e for e in events if e["name"] == "execute"][1:]
    best = min(executes, key=lambda e: e["dur"])
    kinds = collections.defaultdict(float)
    for op in events:
        if op["cat"] != "method" and best["ts"] <= op["ts"] < best["ts"] + best["dur"]:
            kinds[kind_of(op)] += op["dur"] / 1e3
    return best["dur"] / 1e3, best["args"]["cpu_us"] / 1e3, kinds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bins", nargs="+", required=True, help="NAME=path/to/executor_runner")
    ap.add_argument("--models", nargs="+", default=["densenet121", "resnet50", "resnet18"])
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    bins = [b.split("=", 1) for b in args.bins]
    best = {}  # (model, threads, bin) -> (wall, cpu)
    ops = collections.defaultdict(lambda: collections.defaultdict(lambda: float("inf")))
    loads, trips = [], []
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace.json")
        for _ in range(args.rounds):
            loads.append(os.getloadavg()[0])
            trips.append(pingpong())
            for model in args.models:
                for t in args.threads:
                    for name, runner in bins:
                        wall, cpu, kinds = run_once(runner, model, t, args.runs, trace)
                        key = (model, t, name)
                        if key not in best or wall < best[key][0]:
                            best[key] = (wall, cpu)
                        for k, v in kinds.items():
                            ops[key][k] = min(ops[key][k], v)
    print("%d rounds; load %.1f-%.1f; cross-core round trip %.0f-%.0f ns" %
          (args.rounds, min(loads), max(loads), min(trips), max(trips)))
    for model in args.models:
        for name, _ in bins:
            line = "%-20s %-8s" % (model, name)
            for t in args.threads:
                wall, cpu = best[(model, t, name)]
                line += "  %dt %6.2f ms (cpu %6.2f)" % (t, wall, cpu)
            if 1 in args.threads and 2 in args.threads:
                w1, c1 = best[(model, 1, name)]
                w2, c2 = best[(model, 2, name)]
                line += "  scaling %.2f, cpu 2t/1t %.2f" % (w1 / w2, c2 / c1)
            print(line)
        for t in args.threads:
            keys = [(model, t, name) for name, _ in bins]
            kinds = sorted(ops[keys[0]], key=lambda k: -ops[keys[0]][k])
            print("  per operator kind, %d thread(s), ms: %s" % (t, "  ".join(n for n, _ in bins)))
            for k in kinds:
                print("    %-40s" % k + "".join("%9.2f" % ops[key].get(k, 0.0) for key in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())

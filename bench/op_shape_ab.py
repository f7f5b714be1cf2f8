#!/usr/bin/env python3
"""Per-operator A/B of two executor_runner binaries in CPU time, from their --profile traces.

    /opt/tv/bin/python bench/op_shape_ab.py --rounds 3 build-old/executor_runner \\
        build/examples/executor_runner/executor_runner resnet50 densenet121

For each model (bench/models/<m>.pte with <m>_in.npy) and each runner, alternating, it runs
`--num_executions=8 --threads=1 --profile=...`, takes every instruction's median `cpu_us` over the
runs after the first, and sums the instructions by (operator, first two tensor shapes). Each
figure is the best (lowest) over the rounds; the table lists the sums over 150 us, slowest first,
then each model's total over its operators.
"""
import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def profile(runner, model, trace):
    base = os.path.join(HERE, "models", model)
    subprocess.run([runner, "--model_path=" + base + ".pte", "--input=" + base + "_in.npy",
                    "--num_executions=8", "--threads=1", "--profile=" + trace],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    events = [e for e in json.load(open(trace))["traceEvents"] if e.get("cat") == "kernel"]
    per = collections.defaultdict(list)
    for e in events:
        per[e["args"]["instruction"]].append(e)
    sums = collections.defaultdict(float)
    for calls in per.values():
        calls = calls[1:] or calls
        shapes = re.findall(r"\[[0-9, ]*\]", calls[0]["args"]["tensors"])[:2]
        key = (calls[0]["name"].split("::")[-1].split(".")[0], ", ".join(shapes))
        sums[key] += statistics.median(c["args"]["cpu_us"] for c in calls)
    return sums


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("models", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    best = collections.defaultdict(dict)
    totals = collections.defaultdict(dict)
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace.json")
        for _ in range(args.rounds):
            for m in args.models:
                for tag, runner in (("old", args.old), ("new", args.new)):
                    sums = profile(runner, m, trace)
                    for k, v in sums.items():
                        key = (m,) + k
                        best[key][tag] = min(best[key].get(tag, v), v)
                    t = sum(sums.values())
                    totals[m][tag] = min(totals[m].get(tag, t), t)
    print("| model | op | input, weight | old us | new us | new / old |")
    print("|---|---|---|---|---|---|")
    for key, v in sorted(best.items(), key=lambda kv: -kv[1].get("old", 0)):
        if v.get("old", 0) < 150 or "new" not in v:
            continue
        print("| %s | %s | %s | %.0f | %.0f | %.3f |" % (key[0], key[1], key[2], v["old"], v["new"],
                                                         v["new"] / v["old"]))
    for m, v in totals.items():
        print("%s: total over the operators old %.0f us, new %.0f us, %.3f" %
              (m, v["old"], v["new"], v["new"] / v["old"]))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Per-shape A/B of the 3x3 convolutions of a model between two executor_runner
builds, from their --profile traces (bench/layer_efficiency.py's profile():
process CPU time per call, median over the runs after the first; each runner
profiled --rounds times, the lower median kept per call). Prints a Markdown
row per (input, weight, output) shape: calls, ms per run summed over those
calls and direct-equivalent GFLOP/s (2 * out pixels * c_out * c_in * 9 per
call) for the baseline and the new build, and the speedup; then the 3x3 and
whole-execute totals.

    /opt/tv/bin/python bench/conv3x3_ab.py resnet18 --baseline build-old/executor_runner
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import layer_efficiency as le  # noqa: E402


def best_profile(runner, model, threads, runs, rounds):
    pte = os.path.join(HERE, "models", model + ".pte")
    inp = os.path.join(HERE, "models", model + "_in.npy")
    best = None
    for _ in range(rounds):
        calls, ex = le.profile(runner, pte, inp, threads, runs, "cpu")
        if best is None:
            best = ([c["ms"] for c in calls], calls, ex)
        else:
            best = ([min(a, c["ms"]) for a, c in zip(best[0], calls)], calls, min(ex, best[2]))
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="+")
    ap.add_argument("--baseline", required=True, help="the earlier executor_runner")
    ap.add_argument("--runner", default=os.path.join(os.path.dirname(HERE), "build", "examples",
                                                     "executor_runner", "executor_runner"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    print("| model | input | weight | stride | calls | baseline ms / GFLOP/s | new ms / GFLOP/s "
          "| speedup |")
    print("|---|---|---|---|---|---|---|---|")
    for model in args.models:
        old = best_profile(args.baseline, model, args.threads, args.runs, args.rounds)
        new = best_profile(args.runner, model, args.threads, args.runs, args.rounds)
        agg = {}
        for i, c in enumerate(old[1]):
            shapes = re.findall(r"\[([0-9, ]+)\]", c["tensors"])
            if "convolution" not in c["name"] and "conv_bn" not in c["name"]:
                continue
            if len(shapes) < 3:
                continue
            w = [int(v) for v in shapes[1].split(",")]
            if len(w) != 4 or w[2] != 3 or w[3] != 3:
                continue
            key = (shapes[0], shapes[1], shapes[-1])
            a = agg.setdefault(key, [0, 0.0, 0.0])
            a[0] += 1
            a[1] += old[0][i]
            a[2] += new[0][i]
        tot_o = tot_n = 0.0
        for (x, w, out), (cnt, o, n) in agg.items():
            xs = [int(v) for v in x.split(",")]
            ws = [int(v) for v in w.split(",")]
            os_ = [int(v) for v in out.split(",")]
            flops = 2.0 * os_[1] * os_[2] * os_[3] * ws[1] * 9 * cnt
            stride = "1" if os_[2] == xs[2] else "2"
            print("| %s | [%s] | [%s] | %s | %d | %.2f / %.0f | %.2f / %.0f | %.2fx |" % (
                model, x, w, stride, cnt, o, flops / o / 1e6, n, flops / n / 1e6, o / n))
            tot_o += o
            tot_n += n
        print("| %s | 3x3 total | | | | %.2f | %.2f | %.2fx |" % (model, tot_o, tot_n, tot_o / tot_n))
        print("| %s | execute | | | | %.2f | %.2f | %.2fx |" % (model, old[2], new[2],
                                                                old[2] / new[2]))


if __name__ == "__main__":
    main()

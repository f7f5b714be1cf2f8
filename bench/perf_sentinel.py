#!/usr/bin/env python3
"""Per-layer speed sentinel for the benchmark set (issue 22): finds kernels that got slower.

A change that leaves outputs bit-identical can still make a kernel several times slower
(stop 29's shared helper left the batch norm -> ReLU packing of DenseNet-121's 1x1
convolutions scalar: the model went 42 -> 59 ms, unnoticed for two stops, because the
whole-model tables move by +-20% on this host anyway). This script times every
instruction of every model with `executor_runner --profile` (1 thread by default, CPU
time, the minimum over the runs and rounds, which the host's slow phases disturb much less
than a median) and compares them with a baseline taken the same way:

    python3 bench/perf_sentinel.py --update                 # write bench/perf_baseline.json
    python3 bench/perf_sentinel.py                          # compare; exit 1 on a regression
    python3 bench/perf_sentinel.py --runner OLD --update --baseline /tmp/old.json
    python3 bench/perf_sentinel.py --baseline /tmp/old.json # an A/B of two builds
    python3 bench/perf_sentinel.py --runner OLD --update --baseline /tmp/old2.json \
        --threads 2 --clock wall resnet18                     # the same at 2 threads
    python3 bench/perf_sentinel.py --baseline /tmp/old2.json --threads 2 --clock wall resnet18

A regression is a layer kind (conv 1x1, conv 3x3, depthwise, ...) of a model whose summed
minima grew by more than --kind-ratio (default 1.3) and 0.1 ms, or one instruction that
grew by more than --op-ratio (default 1.6) and 0.1 ms. The baseline belongs to one machine
kind; take it on the machine that runs the comparison. Models: those of
bench/export_bench_models.py found in bench/models (portable file for the fp32 models, the
XNNPACK file for the int8 ones, as bench/ab_session.sh).
"""
import argparse
import collections
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import layer_efficiency as le  # noqa: E402

ROOT = os.path.dirname(HERE)
MODELS = ["mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large", "efficientnet_b0",
          "regnet_y_400mf", "resnet18", "resnet50", "densenet121", "vit_small", "transformer",
          "decoder_lm", "wav2letter", "mobilenet_v2_int8_xnnpack", "mobilenet_v2_dq_xnnpack",
          "transformer_int8_xnnpack", "transformer_dq_xnnpack"]


def measure(runner, model, threads, runs, rounds, clock="cpu"):
    """{instruction position: (min ms, category, name, tensors)} over `rounds` profiled runs."""
    stem = model[:-len("_xnnpack")] if model.endswith("_xnnpack") else model
    pte = os.path.join(HERE, "models", model + ".pte")
    inp = os.path.join(HERE, "models", stem + "_in.npy")
    best = {}
    for _ in range(rounds):
        calls, _ = le.profile(runner, pte, inp if os.path.exists(inp) else None, threads, runs,
                              clock, reduce=min)
        for pos, c in enumerate(calls):
            key = str(pos)
            if key not in best or c["ms"] < best[key][0]:
                best[key] = (c["ms"], c["category"], c["name"], c["tensors"])
    return best


def kind_of(category, name, tensors):
    # Classified at comparison time, so a baseline follows layer_efficiency's kinds.
    return le.classify(name, le.parse_tensors(tensors), category)[0]


def kinds_of(ops):
    sums = collections.defaultdict(float)
    for ms, category, name, tensors in ops.values():
        sums[kind_of(category, name, tensors)] += ms
    return sums


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*", default=MODELS)
    ap.add_argument("--runner", default=os.path.join(ROOT, "build", "examples",
                                                     "executor_runner", "executor_runner"))
    ap.add_argument("--baseline", default=os.path.join(HERE, "perf_baseline.json"))
    ap.add_argument("--update", action="store_true", help="write the baseline instead")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=8, help="profiled runs after the first")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--kind-ratio", type=float, default=1.3)
    ap.add_argument("--op-ratio", type=float, default=1.6)
    ap.add_argument("--min-delta-ms", type=float, default=0.1)
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                    help="process CPU time (default) or wall time: at 2 threads the per-layer "
                         "wall time is what a split changes (a baseline holds one clock)")
    args = ap.parse_args()
    models = [m for m in args.models if os.path.exists(os.path.join(HERE, "models", m + ".pte"))]
    if not models:
        print("no benchmark models in bench/models: run bench/export_bench_models.py first")
        return 2
    now = {m: measure(args.runner, m, args.threads, args.runs, args.rounds, args.clock)
           for m in models}
    if args.update:
        base = json.load(open(args.baseline)) if os.path.exists(args.baseline) else {}
        base.update({m: {k: list(v) for k, v in ops.items()} for m, ops in now.items()})
        with open(args.baseline, "w") as f:
            json.dump(base, f, separators=(",", ":"), sort_keys=True)
        print("wrote %s (%d models, %d threads)" % (args.baseline, len(now), args.threads))
        return 0
    base = json.load(open(args.baseline))
    bad = 0
    print("| model | layer kind | baseline ms | now ms | now / baseline |")
    print("|---|---|---|---|---|")
    for m in models:
        if m not in base:
            print("| %s | (not in the baseline) | | | |" % m)
            continue
        old = {k: tuple(v) for k, v in base[m].items()}
        if len(old) != len(now[m]):
            print("| %s | (instruction count %d -> %d: another export?) | | | |" %
                  (m, len(old), len(now[m])))
            continue
        ko, kn = kinds_of(old), kinds_of(now[m])
        for kind in sorted(kn, key=lambda k: -kn[k]):
            o, n = ko.get(kind, 0.0), kn[kind]
            flag = o > 0 and n > o * args.kind_ratio and n - o > args.min_delta_ms
            bad += flag
            ratio = "%.2f" % (n / o) if o > 0 else "-"
            print("| %s | %s | %.3f | %.3f | %s%s |" %
                  (m, kind, o, n, ratio, " **slower**" if flag else ""))
        for key, (n, _, name, tensors) in sorted(now[m].items(), key=lambda kv: int(kv[0])):
            o = old[key][0]
            if n > o * args.op_ratio and n - o > args.min_delta_ms:
                bad += 1
                print("| %s | instruction %s %s %s | %.3f | %.3f | %.2f **slower** |" %
                      (m, key, name, tensors[:90], o, n, n / o))
    print("%d regression(s) past %.2fx (kinds) / %.2fx (instructions) and %.2f ms" %
          (bad, args.kind_ratio, args.op_ratio, args.min_delta_ms))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

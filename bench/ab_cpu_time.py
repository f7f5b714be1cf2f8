#!/usr/bin/env python3
"""Interleaved A/B of two executor_runner binaries in process CPU time (user + system) per
inference at one thread, the figure a loaded shared host moves least (bench/cpu_time.py's
method: each program runs in a fresh runner with --few and --many executions, and
(CPU(many) - CPU(few)) / (many - few) is one execution without the load). The runners take
turns program by program for --rounds rounds; each keeps its lowest figure.

    cp build/examples/executor_runner/executor_runner /tmp/runner_before   # before a change
    /opt/tv/bin/python bench/ab_cpu_time.py --base /tmp/runner_before \\
        --new build/examples/executor_runner/executor_runner \\
        bench/models/mobilenet_v2_int8.pte:bench/models/mobilenet_v2_int8_in.npy ...

A program a runner cannot run (it exits non-zero) shows as "failed" for that runner.
"""
import argparse
import os
import subprocess
import sys


def cpu_seconds(cmd):
    """CPU time (user + system) of the process running cmd; None when it fails."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return None
    return usage.ru_utime + usage.ru_stime


def per_inference_ms(runner, pte, inp, few, many, threads):
    def cmd(runs):
        return [runner, "--model_path=" + pte, "--input=" + inp, "--threads=%d" % threads,
                "--num_executions=%d" % runs]
    a = cpu_seconds(cmd(few))
    b = cpu_seconds(cmd(many))
    if a is None or b is None:
        return None
    return 1e3 * (b - a) / (many - few)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("programs", nargs="+", help="PTE:INPUT.npy")
    ap.add_argument("--base", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--few", type=int, default=5)
    ap.add_argument("--many", type=int, default=45)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    best = {}
    for _ in range(args.rounds):
        for spec in args.programs:
            pte, inp = spec.split(":")
            for which, runner in (("base", args.base), ("new", args.new)):
                ms = per_inference_ms(runner, pte, inp, args.few, args.many, args.threads)
                key = (os.path.basename(pte), which)
                if ms is not None:
                    best[key] = min(best.get(key, ms), ms)
                print("%s %s: %s" % (key[0], which, "failed" if ms is None else "%.2f ms" % ms),
                      file=sys.stderr)
    print("| program | base CPU ms | new CPU ms | new / base |")
    print("|---|---|---|---|")
    for spec in args.programs:
        name = os.path.basename(spec.split(":")[0])
        b, n = best.get((name, "base")), best.get((name, "new"))
        fmt = lambda v: "failed" if v is None else "%.2f" % v
        ratio = "-" if b is None or n is None else "%.2fx" % (n / b)
        print("| %s | %s | %s | %s |" % (name, fmt(b), fmt(n), ratio))


if __name__ == "__main__":
    main()

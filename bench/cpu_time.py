#!/usr/bin/env python3
"""CPU time per inference (user + system) of our executor_runner and of the
official runtime on the same .pte files, at one thread: a figure that a
loaded shared host moves far less than wall-clock time.

    /opt/tv/bin/python bench/cpu_time.py \\
        bench/models/mobilenet_v2_xnnpack.pte:bench/models/mobilenet_v2_in.npy \\
        bench/models/mobilenet_v2_xnnpack_fp16.pte:bench/models/mobilenet_v2_in_fp16.npy

Ours: each program runs in a fresh executor_runner twice, with --few and
--many executions; (CPU(many) - CPU(few)) / (many - few) is the time of one
execution without the load. Official: a child process under
--official-python (its executorch must execute; one thread, as
`_unsafe_reset_threadpool(1)`) measures its own CPU time over --many
executions after two warm-up ones. Everything repeats --rounds times,
interleaved over the programs and runtimes, and the lowest figure is kept.

With --baseline RUNNER, an A/B of two builds instead: that executor_runner
(a copy of an earlier build) is measured the same way as ours, in place of
the official runtime (whose portable kernels take minutes on the big CNNs).
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# The official runtime's child times its own loop (process CPU time after
# two warm-up runs): importing torch costs seconds of CPU time that vary by
# more than the loop itself.
CHILD = r"""
import json, sys, time
import numpy as np
import torch
from executorch.extension.pybindings import portable_lib
from executorch.runtime import Runtime
a = json.loads(sys.argv[1])
portable_lib._unsafe_reset_threadpool(1)
m = Runtime.get().load_program(a["model"]).load_method("forward")
t = torch.from_numpy(np.load(a["input"]))
for _ in range(2):
    m.execute([t])
t0 = time.process_time()
for _ in range(a["runs"]):
    m.execute([t])
print("CPU_MS %.4f" % (1e3 * (time.process_time() - t0) / a["runs"]))
"""


def ours_cpu_seconds(cmd):
    """CPU time (user + system) of the process running cmd, in seconds."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), err[-2000:]))
    return usage.ru_utime + usage.ru_stime


def official_cpu_ms(cmd):
    """The official child's own CPU ms per execution."""
    r = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"CPU_MS ([0-9.]+)", r.stdout)
    if r.returncode != 0 or not m:
        sys.exit("failed: %s\n%s" % (" ".join(cmd[:2]), r.stderr[-2000:]))
    return float(m.group(1))


def command(runtime, pte, inp, runs, runner, python, threads=1):
    if runtime == "ours":
        return [runner, "--model_path=" + pte, "--input=" + inp, "--threads=%d" % threads,
                "--num_executions=%d" % runs]
    return [python, "-c", CHILD, json.dumps(dict(model=pte, input=inp, runs=runs))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("programs", nargs="+", help="PTE:INPUT.npy")
    ap.add_argument("--few", type=int, default=5)
    ap.add_argument("--many", type=int, default=55)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runner", default=os.path.join(ROOT, "build", "examples", "executor_runner",
                                                     "executor_runner"))
    ap.add_argument("--official-python", default="/opt/tv213/bin/python")
    ap.add_argument("--baseline", help="an earlier executor_runner to compare with, instead of "
                                       "the official runtime")
    ap.add_argument("--threads", type=int, default=1,
                    help="threads of our runners (with --baseline; the official runtime: 1)")
    args = ap.parse_args()
    if args.threads != 1 and not args.baseline:
        sys.exit("--threads other than 1 needs --baseline (the official child runs 1 thread)")
    peer = "baseline" if args.baseline else "official"
    best = {}
    for _ in range(args.rounds):
        for spec in args.programs:
            pte, inp = spec.split(":")
            for runtime in ("ours", peer):
                if runtime != "official":
                    runner = args.runner if runtime == "ours" else args.baseline
                    few = ours_cpu_seconds(command("ours", pte, inp, args.few, runner, None,
                                                   args.threads))
                    many = ours_cpu_seconds(command("ours", pte, inp, args.many, runner, None,
                                                    args.threads))
                    ms = 1e3 * (many - few) / (args.many - args.few)
                else:
                    ms = official_cpu_ms(command(runtime, pte, inp, args.many, None,
                                                 args.official_python))
                key = (os.path.basename(pte), runtime)
                best[key] = min(best.get(key, ms), ms)
                print("%s %s: %.2f ms" % (key[0], runtime, ms), file=sys.stderr)
    print("| program | ours CPU ms / inference | %s CPU ms / inference | ours / %s |" % (peer, peer))
    print("|---|---|---|---|")
    for spec in args.programs:
        name = os.path.basename(spec.split(":")[0])
        o, e = best[(name, "ours")], best[(name, peer)]
        print("| %s | %.2f | %.2f | %.2fx |" % (name, o, e, o / e))


if __name__ == "__main__":
    main()

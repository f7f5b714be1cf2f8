#!/usr/bin/env python3
"""CPU time of one forward call of the LLM benchmark models, ours against the
official runtime, on one thread: a decode step (one token at input_pos 100)
and a 64-token prefill (input_pos 0). CPU time, unlike wall time, hardly
moves when other processes share the cores, so this separates the kernels'
speed from the host's load (bench/llm_compare.py times whole generations).

    /opt/tv/bin/python bench/llm_step_cpu.py [--runs 40]

Ours: executor_runner's user CPU time for N + 1 executions minus that for 1
(load and packing cancel out), over N. Official: time.process_time() around
each Method.execute in /opt/tv210's runtime after one warm-up call, median.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OFFICIAL_PY = "/opt/tv210/bin/python"

OFFICIAL = r"""
import sys, time, torch
import executorch.extension.llm.custom_ops.custom_ops, executorch.kernels.quantized
from executorch.extension.pybindings import portable_lib
from executorch.runtime import Runtime
portable_lib._unsafe_reset_threadpool(1)
m = Runtime.get().load_program(sys.argv[1]).load_method("forward")
tok = torch.from_numpy(__import__("numpy").load(sys.argv[2]))
pos = torch.from_numpy(__import__("numpy").load(sys.argv[3]))
m.execute([tok, pos])
ts = []
for _ in range(int(sys.argv[4])):
    t0 = time.process_time()
    m.execute([tok, pos])
    ts.append(time.process_time() - t0)
ts.sort()
print("CPU_MS %.3f" % (1e3 * ts[len(ts) // 2]))
"""


def user_seconds(cmd):
    with tempfile.NamedTemporaryFile("r") as f:
        subprocess.run(["/usr/bin/time", "-f", "%U", "-o", f.name] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        return float(f.read().split()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--runner", default=os.path.join(ROOT, "build", "examples", "executor_runner",
                                                     "executor_runner"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        inputs = {
            "decode": (np.array([[60]], dtype=np.int64), np.array([100], dtype=np.int64)),
            "prefill64": (np.arange(1, 65, dtype=np.int64).reshape(1, 64),
                          np.array([0], dtype=np.int64)),
        }
        print("| model | step | ours CPU ms | official CPU ms | official / ours |")
        print("|---|---|---|---|---|")
        for model in ("stories110m_fp32", "stories110m_8da4w"):
            pte = os.path.join(HERE, "models", model + ".pte")
            for step, (tok, pos) in inputs.items():
                tp, pp = os.path.join(d, step + "_tok.npy"), os.path.join(d, step + "_pos.npy")
                np.save(tp, tok)
                np.save(pp, pos)
                n = args.runs if step == "decode" else max(4, args.runs // 4)
                base = [args.runner, "--model_path=" + pte, "--input=" + tp, "--input=" + pp,
                        "--threads=1"]
                one = user_seconds(base + ["--num_executions=1"])
                many = user_seconds(base + ["--num_executions=%d" % (n + 1)])
                ours = 1e3 * (many - one) / n
                out = subprocess.run([OFFICIAL_PY, "-c", OFFICIAL, pte, tp, pp, str(n)],
                                     capture_output=True, text=True)
                official = float(out.stdout.split("CPU_MS")[-1]) if "CPU_MS" in out.stdout else 0
                print("| %s | %s | %.2f | %.2f | %s |" % (
                    model, step, ours, official,
                    "%.2fx" % (official / ours) if ours > 0 and official > 0 else "-"), flush=True)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Median execute time of XNNPACK fixtures on the OFFICIAL runtime, for comparison
with ours (`executor_runner --num_executions=200 --threads=N`).

    /opt/tv/bin/python bench/official_xnnpack_bench.py mlp cnn mobilenet_v2

Needs the official pip package (executorch 1.5.x, torch). Times
`Method.execute` through the Python binding (includes a few microseconds of
call overhead) after 5 warm-up runs; the thread count is the binding's default.
"""
import os
import sys
import time

import numpy as np
import torch
from executorch.runtime import Runtime

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "models", "xnnpack")


def main(cases):
    runtime = Runtime.get()
    for case in cases:
        method = runtime.load_program(os.path.join(HERE, case + ".pte")).load_method("forward")
        x = torch.from_numpy(np.load(os.path.join(HERE, case, "a_in0.npy")))
        for _ in range(5):
            method.execute([x])
        times = []
        for _ in range(200):
            start = time.perf_counter()
            method.execute([x])
            times.append(time.perf_counter() - start)
        times.sort()
        print("%s official median %.3f ms" % (case, 1e3 * times[len(times) // 2]))


if __name__ == "__main__":
    main(sys.argv[1:] or ["mlp", "cnn", "mobilenet_v2", "resnet18_small", "transformer_encoder"])

#!/usr/bin/env python3
"""Method-load time of the OFFICIAL runtime (pip executorch), for comparison with
`framework_tax_bench`'s BM_MethodLoad on the same files.

    /opt/tv/bin/python bench/official_method_load.py \\
        test/models/no_constants.pte test/models/transformer.pte bench/models/mobilenet_v2.pte

Loads each program once, then times the binding's own `load_method("forward")`
(`Program._program`: the cached `Program.load_method` would return the same Method
each time), min and median of --runs calls. Each call also sets up the binding's
planned-memory arenas and its Python wrapper (the call overhead alone is printed: the
time of `num_methods`), so the official figures are upper bounds of its C++ cost.
"""
import argparse
import time

from executorch.runtime import Runtime


def timed(fn, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return 1e6 * times[0], 1e6 * times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    runtime = Runtime.get()
    for path in args.files:
        program = runtime.load_program(path)
        native = program._program
        for _ in range(5):
            native.load_method("forward")
        lo, med = timed(lambda: native.load_method("forward"), args.runs)
        olo, omed = timed(lambda: native.num_methods(), args.runs)
        print("%-40s load_method min %9.2f us  median %9.2f us  (binding call overhead ~%.2f us)"
              % (path, lo, med, omed))


if __name__ == "__main__":
    main()

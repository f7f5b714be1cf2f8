#!/usr/bin/env python3
"""Load + init A/B: an old executor_runner against a new one (and the new one with the
XNNPACK packed-weight cache, and the official runtime), interleaved, best of the rounds.

    /opt/tv/bin/python bench/load_init_ab.py --old build-old/executor_runner \\
        --new build/examples/executor_runner/executor_runner --rounds 3 --json ab.json

For every model of bench/models (the issue-22 set that is there) and every file (the
portable `.pte` and `_xnnpack.pte`) at each --threads count, one round runs, in turn: the old
runner, the new runner, the new runner with --weight_cache_dir (a cache written by an
unmeasured run first; XNNPACK files only) and the official runtime (pip executorch under
/opt/tv213, `load_program` + `load_method`, as bench/compare.py measures it; XNNPACK files
only). Reported per cell: load + init wall ms and process CPU ms (best of the rounds), the
init peak RSS over the steady RSS (the runner's figures after load / after the runs;
target <= 1.1) and the first execute's CPU time over the steady median (target <= 1.2).
On a loaded 2-core host trust the CPU columns; the wall ones include other processes.
"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (run_measured, runner_extras, run_child, the model list)


def run_runner(runner, pte, inp, threads, runs, extra_args=()):
    cmd = [runner, "--model_path=" + pte, "--input=" + inp, "--num_executions=%d" % runs,
           "--threads=%d" % threads] + list(extra_args)
    rc, text, stdout, _ = compare.run_measured(cmd)
    if rc != 0:
        return {"error": text.strip().splitlines()[-1:]}
    e = compare.runner_extras(stdout)
    m = re.search(r"\) in ([0-9.]+) ms", stdout)
    e["load_ms"] = float(m.group(1)) if m else None
    return e


def run_official(pte, inp, threads, runs, python):
    _, _, err, extra = compare.run_child("et", pte, inp, threads, runs, 2, python)
    if extra is None:
        return {"error": err}
    return extra


def better(best, new):
    """Keeps the lowest load wall / CPU and the lowest steady CPU seen; the RSS and
    first-execute ratios of the last round."""
    if best is None or "error" in best:
        return new
    if "error" in new:
        return best
    out = dict(new)
    for k in ("load_ms", "load_cpu_ms", "cpu_ms"):
        vals = [v for v in (best.get(k), new.get(k)) if v is not None]
        out[k] = min(vals) if vals else None
    return out


def cell(e):
    if e is None:
        return "-"
    if "error" in e:
        return "failed"
    return "%.1f / %.1f" % (e.get("load_ms") or float("nan"), e.get("load_cpu_ms") or float("nan"))


def rss_ratio(e):
    if not e or "error" in e or not e.get("init_peak_mb") or not e.get("steady_rss_mb"):
        return "-"
    return "%.2f" % (e["init_peak_mb"] / e["steady_rss_mb"])


def first_ratio(e):
    if not e or "error" in e or not e.get("first_cpu_ms") or not e.get("cpu_ms"):
        return "-"
    return "%.2f" % (e["first_cpu_ms"] / e["cpu_ms"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*", help="default: the issue-22 models in bench/models")
    ap.add_argument("--old", help="the old executor_runner")
    ap.add_argument("--new", help="the new executor_runner")
    ap.add_argument("--threads", type=int, nargs="+", default=[1])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=10, help="executes per run (steady median)")
    ap.add_argument("--no-official", action="store_true")
    ap.add_argument("--official-python", default=compare.default_python("/opt/tv213/bin/python"))
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--from-json", help="measure nothing: print the table of an earlier --json")
    args = ap.parse_args()
    if not args.from_json and not (args.old and args.new):
        ap.error("--old and --new are needed (or --from-json)")
    if args.from_json:
        with open(args.from_json) as f:
            print_table(json.load(f))
        return
    models = args.models or [m for m in compare.ISSUE22_MODELS
                             if os.path.exists(os.path.join(compare.MODELS_DIR, m + ".pte"))]
    cache_dir = tempfile.mkdtemp(prefix="etr_weight_cache_ab")
    results = []
    try:
        for model in models:
            inp = os.path.join(compare.MODELS_DIR, model + "_in.npy")
            for suffix in ("", "_xnnpack"):
                pte = os.path.join(compare.MODELS_DIR, model + suffix + ".pte")
                if not os.path.exists(pte):
                    continue
                for t in args.threads:
                    kinds = [("old", lambda: run_runner(args.old, pte, inp, t, args.runs)),
                             ("new", lambda: run_runner(args.new, pte, inp, t, args.runs))]
                    if suffix:
                        cache = ["--weight_cache_dir=" + cache_dir]
                        run_runner(args.new, pte, inp, t, 1, cache)  # writes the cache
                        kinds.append(("new_cache",
                                      lambda: run_runner(args.new, pte, inp, t, args.runs, cache)))
                        if not args.no_official:
                            kinds.append(("official", lambda: run_official(
                                pte, inp, t, args.runs, args.official_python)))
                    best = {}
                    for _ in range(args.rounds):
                        for name, fn in kinds:
                            best[name] = better(best.get(name), fn())
                    print("%s%s t=%d: %s" % (model, suffix, t, json.dumps(best)), file=sys.stderr)
                    results.append(dict(model=model + suffix, threads=t, cells=best))
                    if args.json:
                        with open(args.json, "w") as f:
                            json.dump(results, f, indent=1)
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
    print_table(results)


def print_table(results):
    print("| file | threads | old load ms / CPU ms | new | new + weight cache | official | "
          "new / official (CPU) | new + cache / official (CPU) | init peak / steady RSS old -> "
          "new (cache) | first CPU x steady new (cache) |")
    print("|" + "---|" * 10)
    for r in results:
        c = r["cells"]
        off = c.get("official") or {}
        ok = "error" not in off and off.get("load_cpu_ms")

        def vs(name):
            e = c.get(name) or {}
            if not ok or "error" in e or not e.get("load_cpu_ms"):
                return "-"
            return "%.2f" % (e["load_cpu_ms"] / off["load_cpu_ms"])

        cache_rss = " (%s)" % rss_ratio(c.get("new_cache")) if "new_cache" in c else ""
        cache_first = " (%s)" % first_ratio(c.get("new_cache")) if "new_cache" in c else ""
        print("| %s | %d | %s | %s | %s | %s | %s | %s | %s -> %s%s | %s%s |" % (
            r["model"], r["threads"], cell(c.get("old")), cell(c.get("new")),
            cell(c.get("new_cache")), cell(c.get("official")), vs("new"), vs("new_cache"),
            rss_ratio(c.get("old")), rss_ratio(c.get("new")), cache_rss,
            first_ratio(c.get("new")), cache_first))


if __name__ == "__main__":
    main()

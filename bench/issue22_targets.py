#!/usr/bin/env python3
"""Issue 22's targets, model by model, from the JSON files of bench/compare.py --json and
bench/layer_efficiency.py --json:

    /opt/tv/bin/python bench/issue22_targets.py --compare /tmp/cmp_*.json --layers /tmp/lay_*.json

One row per model; each cell is the measured figure and met / missed (by how much):
* speed: ours best path / faster of the official XNNPACK run and ONNX Runtime <= 0.8, from
  the best wall-time medians and from the CPU times (the latter holds on a loaded host);
* conv / GEMM kinds >= 70% of the FMA peak, memory-bound kinds >= 60% of the bandwidth
  (1-thread layer profile of our portable file, CPU time; the lowest kind is shown);
* 2-thread scaling >= 1.8x (wall time of our best path);
* load + init <= the official runtime's (CPU time where recorded, else wall);
* first execute <= 1.2x the steady median; init peak RSS <= 1.1x the steady RSS (ours).
"""
import argparse
import json

COMPUTE = ["conv 1x1", "conv 3x3", "conv grouped", "conv other", "linear/matmul"]
MEMORY = ["conv depthwise", "elementwise", "pooling", "norm", "softmax", "linear M=1 (GEMV)",
          "copy/layout", "quantize/dequantize"]
OURS = ["ours", "ours_xnnpack"]
PEERS = ["official_xnnpack", "ort"]


def verdict(value, limit, higher_is_better=False, fmt="%.2f"):
    if value is None:
        return "-"
    ok = value >= limit if higher_is_better else value <= limit
    if ok:
        return (fmt % value) + " met"
    gap = (limit / value) if higher_is_better else (value / limit)
    return (fmt % value) + " missed (%.2fx off)" % gap


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compare", nargs="+", required=True)
    ap.add_argument("--layers", nargs="*", default=[])
    args = ap.parse_args()

    runs = {}  # (model, threads) -> runtimes dict
    order = []
    for path in args.compare:
        for e in json.load(open(path)):
            key = (e["model"], e["threads"])
            if e["model"] not in order:
                order.append(e["model"])
            runs[key] = e["runtimes"]
    layers = {}  # model -> kinds (1 thread, portable file)
    for path in args.layers:
        for r in json.load(open(path))["rows"]:
            if r["threads"] == 1 and not r["file"].endswith("_xnnpack.pte"):
                layers[r["model"]] = r["kinds"]

    def best(rt, names, key):
        have = [(rt[n][key], n) for n in names
                if n in rt and "failed" not in rt[n] and rt[n].get(key)]
        return min(have) if have else (None, None)

    print("| model | threads | ours/peer (wall) <= 0.8 | ours/peer (CPU) <= 0.8 | "
          "lowest conv/GEMM kind >= 70% peak | lowest memory kind >= 60% bw | "
          "2-thread scaling >= 1.8 | load ours/official <= 1 | first/steady <= 1.2 | "
          "init peak/steady RSS <= 1.1 |")
    print("|" + "---|" * 10)
    for model in order:
        for t in (1, 2):
            rt = runs.get((model, t))
            if rt is None:
                continue
            ours_ms, ours_c = best(rt, OURS, "median_ms")
            peer_ms, _ = best(rt, PEERS, "median_ms")
            wall = ours_ms / peer_ms if ours_ms and peer_ms else None
            ours_cpu, _ = best(rt, OURS, "best_cpu_ms")
            peer_cpu, _ = best(rt, PEERS, "best_cpu_ms")
            cpu = ours_cpu / peer_cpu if ours_cpu and peer_cpu else None
            comp = mem = "-"
            if t == 1 and model in layers:
                k = layers[model]
                c = [(k[n]["pct_peak"], n) for n in COMPUTE
                     if k.get(n, {}).get("pct_peak") and k[n]["share"] >= 0.02]
                if c:
                    v, n = min(c)
                    comp = verdict(100 * v, 70, True, "%.0f%%") + " (%s)" % n
                m = []
                for n in MEMORY:
                    d = k.get(n, {})
                    if d.get("share", 0) < 0.02:
                        continue
                    v = d.get("pct_dram") if n == "linear M=1 (GEMV)" else d.get("pct_cache")
                    if v:
                        m.append((v, n))
                if m:
                    v, n = min(m)
                    mem = verdict(100 * v, 60, True, "%.0f%%") + " (%s)" % n
            scaling = "-"
            if t == 2 and ours_c:
                one = runs.get((model, 1), {}).get(ours_c, {})
                if one.get("median_ms"):
                    scaling = verdict(one["median_ms"] / ours_ms, 1.8, True) + " (%s)" % ours_c
            load = first = rss = "-"
            if ours_c:
                mine = rt[ours_c]
                official = rt.get("official_xnnpack", {})
                if mine.get("best_load_cpu_ms") and official.get("best_load_cpu_ms"):
                    load = verdict(mine["best_load_cpu_ms"] / official["best_load_cpu_ms"], 1.0)
                    load += " (CPU)"
                elif mine.get("load_ms") and official.get("load_ms"):
                    load = verdict(mine["load_ms"] / official["load_ms"], 1.0) + " (wall)"
                if mine.get("first_cpu_ms") and mine.get("best_cpu_ms"):
                    first = verdict(mine["first_cpu_ms"] / mine["best_cpu_ms"], 1.2) + " (CPU)"
                elif mine.get("first_ms"):
                    first = verdict(mine["first_ms"] / mine["median_ms"], 1.2) + " (wall)"
                if mine.get("init_peak_mb") and mine.get("steady_rss_mb"):
                    rss = verdict(mine["init_peak_mb"] / mine["steady_rss_mb"], 1.1)
            print("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                model, t, verdict(wall, 0.8), verdict(cpu, 0.8), comp, mem, scaling, load,
                first, rss))


if __name__ == "__main__":
    main()

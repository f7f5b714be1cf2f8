#!/usr/bin/env python3
"""Issue 19's LLM benchmark: our examples/llm_runner against the official
ExecuTorch TextLLMRunner (pip executorch 1.5.1 on torch 2.10, /opt/tv210) on
the same .pte files, greedy, at 1 and 2 threads.

    /opt/tv/bin/python bench/export_llm_bench_models.py     # once: bench/models/stories110m_*
    /opt/tv/bin/python bench/llm_compare.py                 # every model, 1 and 2 threads
    /opt/tv/bin/python bench/llm_compare.py stories110m_8da4w --threads 1 --rounds 5

Models: the stories110M-shaped decoder (fp32 and 8da4w, XNNPACK; prompt of
64 tokens, 128 new tokens) and the tiny fixtures of test/models/llm (context
32: prompt of 8 tokens, 16 new tokens). The prompt is text for the official
runner (one BOS, then bytes that the tokenizer maps to one token each) and
the same ids for ours (--prompt_tokens; the tokenizers package gives them).

Each run is a fresh process per runtime; rounds interleave the runtimes so a
burst of load on the shared host hits both, and each figure keeps its best
value over the rounds (highest rate, lowest time). Printed per runtime:
prefill tokens/s (prompt tokens / time to the first token), decode tokens/s
(tokens after the first / the time after the first), time to first token
(prefill and the first sampling), model load, the process's peak RSS (for the
official one also the interpreter's peak before the model, so its model share
is the difference); and for 8da4w the decode time per token over the memory
bandwidth bound: (weight bytes read per token / memcpy bandwidth measured
here with numpy, the best of measurements before and after each model).

Ours: the stats line of llm_runner, either the official `PyTorchObserver
{json}` line or its own `stats: prompt tokens N, ..., prefill X ms, decode Y
ms` line. Official: timed in the child around generate() and in the token
callback (perf_counter; the runner's own stats are whole milliseconds), after
setting its thread pool with _unsafe_reset_threadpool as llama_main does with
--cpu_threads. Both runs must produce the same tokens; a mismatch is printed.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS_DIR = os.path.join(HERE, "models")
TINY_DIR = os.path.join(ROOT, "test", "models", "llm")
OFFICIAL_PY = "/opt/tv210/bin/python"

# name -> (pte, tokenizer.json, prompt tokens, new tokens)
MODELS = {
    "stories110m_fp32": (os.path.join(MODELS_DIR, "stories110m_fp32.pte"),
                         os.path.join(MODELS_DIR, "stories110m_tokenizer.json"), 64, 128),
    "stories110m_8da4w": (os.path.join(MODELS_DIR, "stories110m_8da4w.pte"),
                          os.path.join(MODELS_DIR, "stories110m_tokenizer.json"), 64, 128),
    "tiny_llama_xnnpack": (os.path.join(TINY_DIR, "tiny_llama_xnnpack.pte"),
                           os.path.join(TINY_DIR, "tokenizer.json"), 8, 16),
    "tiny_llama_portable": (os.path.join(TINY_DIR, "tiny_llama_portable.pte"),
                            os.path.join(TINY_DIR, "tokenizer.json"), 8, 16),
}
BOS_ID = 1
# Prompt text: the official tokenizer gives the tiny models several bytes per
# token and the benchmark tokenizer one, so the text is cut to the token count.
PROMPT_TEXT = ("Once upon a time there was a little robot who liked to read books. "
               "The robot read about the sea, the stars and the small town by the river. ")

# The official runner, in a child process: python -c OFFICIAL_CHILD <json args>.
OFFICIAL_CHILD = r"""
import json, resource, sys, time
a = json.loads(sys.argv[1])
import executorch.extension.llm.custom_ops.custom_ops  # registers llama:: kernels
import executorch.kernels.quantized  # registers quantized_decomposed:: kernels
from executorch.extension.pybindings import portable_lib
from executorch.extension.llm.runner import GenerationConfig, TextLLMRunner
print("BASE_RSS_KB %d" % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, flush=True)
portable_lib._unsafe_reset_threadpool(a["threads"])
t0 = time.perf_counter()
runner = TextLLMRunner(a["model"], a["tokenizer"])
load_ms = 1e3 * (time.perf_counter() - t0)

def run(n):
    times = []
    pieces = []
    def on_token(s):
        times.append(time.perf_counter())
        pieces.append(s)
    stats = []
    cfg = GenerationConfig(echo=False, max_new_tokens=n, temperature=0.0, num_bos=1,
                           seq_len=a["seq_len"])
    runner.reset()
    start = time.perf_counter()
    runner.generate(a["prompt"], cfg, token_callback=on_token,
                    stats_callback=lambda s: stats.append(s))
    s = stats[-1] if stats else None
    return start, times, pieces, s

for _ in range(a["warmup"]):
    run(a["new_tokens"])
start, times, pieces, s = run(a["new_tokens"])
if s is not None and s.model_load_end_ms > s.model_load_start_ms:
    load_ms = max(load_ms, float(s.model_load_end_ms - s.model_load_start_ms))
out = dict(load_ms=load_ms, prompt_tokens=s.num_prompt_tokens if s else -1,
           generated=len(times), ttft_ms=1e3 * (times[0] - start),
           decode_ms=1e3 * (times[-1] - times[0]), pieces=pieces)
print("RESULT " + json.dumps(out), flush=True)
"""


def run_measured(cmd):
    """Runs cmd under GNU time; returns (returncode, stdout, stderr, peak RSS in MB of that
    process). GNU time's own small process forks the command: a child forked from this
    interpreter would inherit its peak RSS (Linux keeps ru_maxrss across exec)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err, \
            tempfile.NamedTemporaryFile("r") as rss:
        p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name] + cmd, stdout=out,
                           stderr=err, text=True)
        out.seek(0)
        err.seek(0)
        lines = [l for l in rss.read().split() if l.isdigit()]
        return p.returncode, out.read(), err.read(), int(lines[-1]) / 1024.0 if lines else 0.0


def figures(prompt_tokens, generated, ttft_ms, decode_ms, load_ms, rss_mb, base_mb=0.0):
    return dict(prefill_tps=1e3 * prompt_tokens / ttft_ms if ttft_ms > 0 else 0.0,
                decode_tps=1e3 * (generated - 1) / decode_ms if decode_ms > 0 else 0.0,
                ttft_ms=ttft_ms, load_ms=load_ms, rss_mb=rss_mb, base_mb=base_mb,
                prompt_tokens=prompt_tokens, generated=generated)


def parse_ours(stdout):
    """Stats from llm_runner's output: the PyTorchObserver JSON line when it
    prints one, else its `stats:` line. None when neither is there."""
    m = re.search(r"PyTorchObserver\s*(\{.*\})", stdout)
    if m:
        try:
            s = json.loads(m.group(1))
            start = float(s["inference_start_ms"])
            first = float(s.get("first_token_ms") or s["prompt_eval_end_ms"])
            end = float(s["inference_end_ms"])
            load = float(s["model_load_end_ms"]) - float(s["model_load_start_ms"])
            gen = int(s["num_generated_tokens"])
            # The official runner counts the tokens of its decode loop (after the first).
            return dict(prompt_tokens=int(s["num_prompt_tokens"]), generated=gen + 1,
                        ttft_ms=first - start, decode_ms=end - first, load_ms=load,
                        observer=True)
        except (KeyError, ValueError, TypeError):
            pass
    m = re.search(r"prompt tokens (\d+), generated tokens (\d+), load ([0-9.]+) ms, "
                  r"prefill ([0-9.]+) ms, decode ([0-9.]+) ms", stdout)
    if not m:
        return None
    return dict(prompt_tokens=int(m.group(1)), generated=int(m.group(2)),
                load_ms=float(m.group(3)), ttft_ms=float(m.group(4)),
                decode_ms=float(m.group(5)), observer=False)


def generated_ids(stdout):
    """The comma-separated id line llm_runner prints (None when there is none)."""
    for line in stdout.splitlines():
        if re.fullmatch(r"\d+(,\d+)*", line.strip()):
            return [int(x) for x in line.strip().split(",")]
    return None


def run_ours(runner, model, ids, new_tokens, threads, warmup):
    cmd = [runner, "--model_path=" + model, "--prompt_tokens=" + ",".join(map(str, ids)),
           "--max_new_tokens=%d" % new_tokens, "--temperature=0", "--threads=%d" % threads]
    if warmup:
        cmd.append("--warmup")
    rc, out, err, rss = run_measured(cmd)
    s = parse_ours(out) if rc == 0 else None
    if s is None:
        return None, (err or out).strip().splitlines()[-1:] or ["no stats line"], None
    f = figures(s["prompt_tokens"], s["generated"], s["ttft_ms"], s["decode_ms"], s["load_ms"],
                rss)
    return f, None, generated_ids(out)


def run_official(model, tokenizer, prompt, new_tokens, threads, warmup, seq_len):
    args = json.dumps(dict(model=model, tokenizer=tokenizer, prompt=prompt, threads=threads,
                           new_tokens=new_tokens, warmup=warmup, seq_len=seq_len))
    rc, out, err, rss = run_measured([OFFICIAL_PY, "-c", OFFICIAL_CHILD, args])
    m = re.search(r"RESULT (\{.*\})", out)
    if rc != 0 or not m:
        return None, (err or out).strip().splitlines()[-1:], None
    r = json.loads(m.group(1))
    base = int(re.search(r"BASE_RSS_KB (\d+)", out).group(1)) / 1024.0
    f = figures(r["prompt_tokens"], r["generated"], r["ttft_ms"], r["decode_ms"], r["load_ms"],
                rss, base)
    return f, None, r["pieces"]


def prompt_for(tokenizer_path, n_tokens):
    """(text, ids): a prefix of PROMPT_TEXT whose encoding plus one BOS is n_tokens ids."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(tokenizer_path)
    text = PROMPT_TEXT
    while len(tok.encode(text, add_special_tokens=False).ids) < n_tokens - 1:
        text += PROMPT_TEXT
    lo, hi = 1, len(text)
    while lo < hi:  # the shortest prefix with n_tokens - 1 tokens
        mid = (lo + hi) // 2
        if len(tok.encode(text[:mid], add_special_tokens=False).ids) >= n_tokens - 1:
            hi = mid
        else:
            lo = mid + 1
    text = text[:lo]
    ids = [BOS_ID] + tok.encode(text, add_special_tokens=False).ids
    if len(ids) != n_tokens:
        raise SystemExit("cannot make a %d-token prompt for %s" % (n_tokens, tokenizer_path))
    return text, ids, tok


def memcpy_bandwidth():
    """Bytes per second of one large copy (numpy copyto: memcpy), best of 10, in this
    process's CPU time (time slices lost to other processes on a busy host do not count)."""
    src = np.ones(64 << 20, dtype=np.float32)  # 256 MiB
    dst = np.empty_like(src)
    src_bytes = src.nbytes
    best = float("inf")
    for _ in range(10):
        t0 = time.process_time()
        np.copyto(dst, src)
        best = min(best, time.process_time() - t0)
    del src, dst
    return src_bytes / best


def weight_bytes_8da4w(group=128):
    """Bytes of weights one decode step reads in the stories110M 8da4w model:
    every linear layer's 4-bit weights with a 2-byte (bf16) scale per group,
    the norm weights (fp32) and one fp32 embedding row."""
    dim, layers, hidden, vocab = 768, 12, 2048, 32000
    linears = layers * (4 * dim * dim + 3 * dim * hidden) + vocab * dim
    scales = linears // group
    norms = (2 * layers + 1) * dim
    return linears // 2 + 2 * scales + 4 * norms + 4 * dim


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*", default=list(MODELS))
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds; best kept")
    ap.add_argument("--warmup", type=int, default=0,
                    help="generate calls before the measured one (ours only when its runner "
                    "takes --warmup)")
    ap.add_argument("--runner", default=os.path.join(ROOT, "build", "examples", "llm_runner",
                                                     "llm_runner"))
    ap.add_argument("--json", help="also write every measurement here")
    args = ap.parse_args()

    help_text = subprocess.run([args.runner, "--help"], capture_output=True, text=True)
    ours_warmup = "--warmup" in help_text.stdout + help_text.stderr
    if args.warmup and not ours_warmup:
        print("note: %s has no --warmup; both runtimes run cold" % args.runner, file=sys.stderr)
        args.warmup = 0
    bw = memcpy_bandwidth()
    print("memcpy bandwidth: %.2f GB/s" % (bw / 1e9), file=sys.stderr)

    rows = []
    for name in args.models:
        model, tokenizer, n_prompt, n_new = MODELS[name]
        if not os.path.exists(model):
            sys.exit("missing %s: run bench/export_llm_bench_models.py first" % model)
        text, ids, tok = prompt_for(tokenizer, n_prompt)
        seq_len = n_prompt + n_new
        for t in args.threads:
            best = {}
            for r in range(args.rounds):
                for who in ("ours", "official"):
                    if who == "ours":
                        f, err, toks = run_ours(args.runner, model, ids, n_new, t, args.warmup)
                        text_out = "".join(tok.decode([i]) for i in toks) if toks else None
                    else:
                        f, err, pieces = run_official(model, tokenizer, text, n_new, t,
                                                      args.warmup, seq_len)
                        text_out = "".join(pieces) if pieces is not None else None
                    if f is None:
                        print("%s t=%d %s: failed: %s" % (name, t, who, err), file=sys.stderr)
                        best.setdefault(who, None)
                        continue
                    print("%s t=%d round %d %s: %s" % (name, t, r, who, json.dumps(
                        {k: round(v, 2) for k, v in f.items()})), file=sys.stderr)
                    b = best.get(who)
                    if b is None:
                        best[who] = b = dict(f, text=text_out)
                    else:
                        for k in ("prefill_tps", "decode_tps"):
                            b[k] = max(b[k], f[k])
                        for k in ("ttft_ms", "load_ms", "rss_mb"):
                            b[k] = min(b[k], f[k])
            o, p = best.get("ours"), best.get("official")
            same = (o is not None and p is not None and o["text"] == p["text"])
            if o is not None and p is not None and not same:
                a, b = o["text"] or "", p["text"] or ""
                at = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]),
                          min(len(a), len(b)))
                print("%s t=%d: the generated text differs from character %d\n  ours:     %r\n"
                      "  official: %r" % (name, t, at, a[max(0, at - 40):at + 80],
                                          b[max(0, at - 40):at + 80]), file=sys.stderr)
            rows.append((name, t, o, p, same))
        # The host's load changes: the bound uses the best bandwidth seen.
        bw = max(bw, memcpy_bandwidth())

    def cell(f, key, fmt):
        return fmt % f[key] if f is not None else "failed"

    print("| model | threads | runtime | prefill tok/s | decode tok/s | TTFT ms | load ms | "
          "peak RSS MB | tokens (prompt+new) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, t, o, p, same in rows:
        for who, f in (("ours", o), ("official", p)):
            rss = cell(f, "rss_mb", "%.0f")
            if f is not None and f["base_mb"]:
                rss += " (base %.0f)" % f["base_mb"]
            toks = "%d+%d" % (f["prompt_tokens"], f["generated"]) if f is not None else "-"
            print("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                name, t, who, cell(f, "prefill_tps", "%.1f"), cell(f, "decode_tps", "%.1f"),
                cell(f, "ttft_ms", "%.2f"), cell(f, "load_ms", "%.1f"), rss, toks))
    print()
    print("| model | threads | decode ours/official | prefill ours/official | "
          "TTFT ours/official | same tokens | decode ms/token over bandwidth bound |")
    print("|---|---|---|---|---|---|---|")
    wb = weight_bytes_8da4w()
    for name, t, o, p, same in rows:
        def ratio(k):
            return "%.2fx" % (o[k] / p[k]) if o is not None and p is not None and p[k] else "-"
        bound = "-"
        if name == "stories110m_8da4w":
            limit_ms = 1e3 * wb / bw
            parts = []
            for who, f in (("ours", o), ("official", p)):
                if f is not None and f["decode_tps"]:
                    parts.append("%s %.2fx" % (who, (1e3 / f["decode_tps"]) / limit_ms))
            bound = "%s (%.1f MB/token, %.2f ms at %.1f GB/s)" % (
                ", ".join(parts), wb / 1e6, limit_ms, bw / 1e9)
        print("| %s | %d | %s | %s | %s | %s | %s |" % (name, t, ratio("decode_tps"),
                                                         ratio("prefill_tps"), ratio("ttft_ms"),
                                                         "yes" if same else "NO", bound))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump([dict(model=n, threads=t, ours=o, official=p) for n, t, o, p, _ in rows],
                      fh, indent=1)


if __name__ == "__main__":
    main()

"""Tests of etr.llm (the text LLM runner), run by scripts/python_test.sh:

    PYTHONPATH=build-python/python /usr/bin/python3 -m pytest -q python/tests/test_llm.py

On the tiny Llama from ExecuTorch's exporter with its trained tokenizer
(test/models/llm): greedy generation from a text prompt gives the eager
PyTorch model's tokens and the `tokenizers` package's text of them
(text_reference.py), chat turns continue one sequence, stop/reset/prefill
work, the stats parse, bad files and prompts raise Error naming them.
"""

import json
import pathlib
import threading

import numpy as np
import pytest

# Imported plainly: a build without the LLM runner fails here instead of skipping.
from etr.llm import Error, GenerationConfig, Stats, TextLLMRunner  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
DIR = ROOT / "test" / "models" / "llm"
TOKENIZER = str(DIR / "tokenizer.json")
PROGRAMS = ["tiny_llama_portable.pte", "tiny_llama_xnnpack.pte"]
PROMPT = "Once upon a time"
CONTEXT = 32


def ids(name):
    return np.load(DIR / name).tolist()


def greedy(**kw):
    kw.setdefault("echo", False)
    return GenerationConfig(temperature=0.0, **kw)


def runner(pte="tiny_llama_portable.pte", **kw):
    return TextLLMRunner(str(DIR / pte), TOKENIZER, **kw)


def generate(r, prompt, config):
    pieces, stats = [], []
    r.generate(prompt, config, token_callback=pieces.append, stats_callback=stats.append)
    return pieces, stats


def test_generation_config_has_the_official_defaults():
    c = GenerationConfig()
    assert (c.echo, c.max_new_tokens, c.warming, c.seq_len, c.num_bos, c.num_eos) == (
        True, -1, False, -1, 0, 0)
    assert c.temperature == pytest.approx(0.8)
    assert c.resolve_max_new_tokens(32, 5) == 27
    assert GenerationConfig(max_new_tokens=100).resolve_max_new_tokens(32, 5) == 27
    assert GenerationConfig(max_new_tokens=10).resolve_max_new_tokens(32, 5) == 10
    assert GenerationConfig(seq_len=20).resolve_max_new_tokens(32, 5) == 15
    assert GenerationConfig(seq_len=3).resolve_max_new_tokens(32, 5) == 0
    c.max_new_tokens = 7
    assert "max_new_tokens=7" in repr(c)
    with pytest.raises(TypeError):
        GenerationConfig(5)  # keyword-only, as the official


@pytest.mark.parametrize("pte", PROGRAMS)
@pytest.mark.parametrize("name,num_bos", [("bos0", 0), ("bos1", 1)])
def test_greedy_text_matches_eager(pte, name, num_bos):
    prompt = ids(f"text_{name}_prompt.npy")
    want = ids(f"text_{name}_tokens.npy")[:CONTEXT - len(prompt)]
    text = (DIR / f"text_{name}.txt").read_text(encoding="utf-8")
    r = runner(pte, num_threads=1)
    assert r.get_vocab_size() == 128
    assert r.metadata["get_max_context_len"] == CONTEXT
    assert r.metadata["get_eos_ids"] == [2]
    pieces, stats = generate(r, PROMPT, greedy(num_bos=num_bos))
    assert r.prompt_ids == prompt
    assert r.generated_ids == want
    assert "".join(pieces) == text
    assert len(stats) == 1
    assert stats[0].num_prompt_tokens == len(prompt)
    assert stats[0].num_generated_tokens == len(want) - 1  # after the first, as the official
    assert r.position == CONTEXT - 1


def test_echo_passes_the_prompt_first():
    r = runner()
    pieces, _ = generate(r, PROMPT, GenerationConfig(temperature=0.0, max_new_tokens=4))
    assert pieces[0] == PROMPT
    assert r.generated_ids == ids("text_bos0_tokens.npy")[:4]


def test_chat_turns_continue_one_sequence():
    want = ids("text_chat_tokens.npy")
    turn2 = ids("text_chat_turn2_prompt.npy")
    r = runner()
    generate(r, PROMPT, greedy(max_new_tokens=5, num_bos=1))
    assert r.generated_ids == want[:5]
    generate(r, " the robot", greedy())
    assert r.prompt_ids == turn2
    got = want[:5] + r.generated_ids
    assert got == want[:len(got)]
    assert len(got) == 5 + CONTEXT - (13 + 4) - (len(turn2) + 1)
    # An empty prompt continues the generation.
    r.reset()
    generate(r, PROMPT, greedy(max_new_tokens=4, num_bos=1))
    first = r.generated_ids
    generate(r, "", greedy(max_new_tokens=4))
    assert first + r.generated_ids == ids("text_bos1_tokens.npy")[:8]


def test_prefill_then_generate():
    r = runner()
    r.prefill(PROMPT, GenerationConfig(num_bos=1))
    assert r.position == 13
    generate(r, "", greedy(max_new_tokens=6))
    assert r.generated_ids == ids("text_bos1_tokens.npy")[:6]


def test_stop_from_the_callback_and_reset():
    want = ids("text_bos1_tokens.npy")
    r = runner()
    seen = []

    def on_piece(piece):
        seen.append(piece)
        if len(seen) == 3:
            r.stop()

    r.generate(PROMPT, greedy(num_bos=1), token_callback=on_piece)
    assert r.generated_ids == want[:3]
    r.reset()
    assert r.position == 0
    generate(r, PROMPT, greedy(num_bos=1))
    assert r.generated_ids == want[:CONTEXT - 13]


def test_stop_from_another_thread():
    r = runner()
    started = threading.Event()
    release = threading.Event()

    def on_piece(piece):
        if not started.is_set():
            started.set()
            release.wait(10)  # stop() is called while the generation waits here

    t = threading.Thread(target=r.generate, args=(PROMPT, greedy(), on_piece))
    t.start()
    assert started.wait(10)
    r.stop()
    release.set()
    t.join(10)
    assert len(r.generated_ids) == 1


def test_callback_exception_stops_and_propagates():
    r = runner()

    def boom(piece):
        raise ValueError("from the callback")

    with pytest.raises(ValueError, match="from the callback"):
        r.generate(PROMPT, greedy(), token_callback=boom)
    assert len(r.generated_ids) == 1
    r.reset()
    generate(r, PROMPT, greedy(max_new_tokens=2))  # still usable
    assert len(r.generated_ids) == 2


def test_stats():
    r = runner()
    _, stats = generate(r, PROMPT, greedy(num_bos=1))
    s = stats[0]
    assert isinstance(s, Stats)
    assert Stats.SCALING_FACTOR_UNITS_PER_SECOND == 1000
    j = json.loads(s.to_json_string())
    for key in ("prompt_tokens", "generated_tokens", "model_load_start_ms", "model_load_end_ms",
                "inference_start_ms", "inference_end_ms", "prompt_eval_end_ms", "first_token_ms",
                "aggregate_sampling_time_ms", "SCALING_FACTOR_UNITS_PER_SECOND",
                "prefill_token_per_sec", "decode_token_per_sec"):
        assert key in j, key
    assert j["prompt_tokens"] == 13 and j["generated_tokens"] == CONTEXT - 13 - 1
    assert 0 < j["model_load_start_ms"] <= j["model_load_end_ms"] <= j["inference_start_ms"]
    assert j["inference_start_ms"] <= j["prompt_eval_end_ms"] == j["first_token_ms"]
    assert j["first_token_ms"] <= j["inference_end_ms"]
    assert s.peak_rss_bytes > (1 << 20)
    assert r.stats.num_generated_tokens == CONTEXT - 13 - 1
    s.reset()
    assert s.num_generated_tokens == 0 and s.model_load_end_ms == j["model_load_end_ms"]


@pytest.mark.parametrize("model,tokenizer,data,code,names", [
    ("missing.pte", "tokenizer.json", None, "AccessFailed", "missing.pte"),
    ("tiny_llama_portable.pte", "missing.json", None, "AccessFailed", "missing.json"),
    ("tiny_llama_portable.pte", "tokenizer.json", "missing.ptd", "AccessFailed", "missing.ptd"),
    ("tiny_llama_portable.pte", "tiny_llama_xnnpack.pte", None, "InvalidArgument",
     "tiny_llama_xnnpack.pte"),
    ("no_metadata_llm.pte", "tokenizer.json", None, "NotSupported", "get_max_seq_len"),
])
def test_bad_files_raise_naming_them(model, tokenizer, data, code, names):
    with pytest.raises(Error) as info:
        TextLLMRunner(str(DIR / model), str(DIR / tokenizer),
                      None if data is None else str(DIR / data))
    assert isinstance(info.value, RuntimeError)
    assert info.value.code == code
    assert names in info.value.message


def test_bad_prompts_raise():
    r = runner()
    with pytest.raises(Error, match="max_context_len 32") as info:
        r.generate(" ".join([PROMPT] * 3), greedy())
    assert info.value.code == "InvalidArgument"
    with pytest.raises(Error, match="empty"):
        r.generate("", greedy())
    with pytest.raises(Error, match="max_new_tokens 0"):
        r.generate(PROMPT, greedy(max_new_tokens=0))
    with pytest.raises(Error):
        r.generate(PROMPT, greedy(num_bos=-1))
    assert r.position == 0
    generate(r, PROMPT, greedy(max_new_tokens=2))
    assert len(r.generated_ids) == 2


# Every exporter flavour (test/models/llm/export_llm_flavours.py): exactly the
# text the OFFICIAL TextLLMRunner streamed for the same file and settings.
FLAVOURS = ["portable", "kv_index_put", "no_kv", "quantized_kv", "xnnpack", "xnnpack_extended",
            "external", "8da4w_g32_emb4", "8da4w_g128_emb8", "attention_sink", "bf16",
            "bf16_xnnpack", "spinquant", "spinquant_h224"]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_every_flavour_streams_the_official_runners_text(flavour):
    want = (DIR / "refs" / f"{flavour}_greedy_text.txt").read_bytes().decode("utf-8")
    ptd = DIR / f"tiny_llama_{flavour}.ptd"
    r = TextLLMRunner(str(DIR / f"tiny_llama_{flavour}.pte"), TOKENIZER,
                      data_path=str(ptd) if ptd.exists() else None)
    pieces, _ = generate(r, PROMPT, greedy(max_new_tokens=16, num_bos=1))
    assert "".join(pieces) == want

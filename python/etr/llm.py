"""Generate text with LLMs exported by ExecuTorch's LLM exporter, with the
shape of the official ``executorch.extension.llm.runner``::

    from etr.llm import GenerationConfig, TextLLMRunner
    runner = TextLLMRunner("llama.pte", "tokenizer.json")   # data_path="weights.ptd"
    runner.generate("Once upon a time", GenerationConfig(max_new_tokens=32, temperature=0.0),
                    token_callback=lambda piece: print(piece, end="", flush=True),
                    stats_callback=lambda stats: print(stats.to_json_string()))

``TextLLMRunner(model_path, tokenizer_path, data_path=None, num_threads=0)``
loads the tokenizer (its format is detected from the file) and the program
and reads the program's metadata methods at once; a missing or bad file
raises :class:`Error` naming it. ``num_threads`` 0: one per physical core.

``generate(prompt, config, token_callback=None, stats_callback=None)``
encodes the prompt (``config.num_bos`` / ``num_eos`` BOS / EOS tokens around
it, 0 by default as in the official runner), generates up to
``config.resolve_max_new_tokens(...)`` tokens (``max_new_tokens`` past the
context is lowered to what fits, as the official runner does), and passes
each piece of text to ``token_callback`` as soon as it completes a UTF-8
character (with ``config.echo``, the default, the prompt first). The
:class:`Stats` go to ``stats_callback`` at the end. Unlike the official
binding nothing is printed to stdout.

Chat: the position in the KV cache carries over between ``generate`` calls
(and the last generated token is fed before the next prompt), so successive
calls continue one sequence; ``generate("")`` continues the generation.
``prefill(prompt, config)`` feeds text without generating; ``reset()``
starts again at position 0; ``stop()`` (from a callback or another thread)
ends the running generation after the current token.

Beyond the official API: ``warmup(prompt, max_new_tokens)``, and the
properties ``position``, ``generated_ids``, ``prompt_ids``, ``stats``,
``metadata`` (a dict of the program's metadata values); ``GenerationConfig``
also takes ``top_p`` (0.9) and ``seed`` (42) for sampling at temperature > 0.

Errors raise :class:`Error` (a ``RuntimeError``, as the official binding)
with ``.code`` (``"InvalidArgument"``, ``"AccessFailed"``, ...) and
``.message`` (what failed, naming the file or argument).
"""

from __future__ import annotations

from . import _etr

if not hasattr(_etr, "llm"):  # built without the tokenizers (nlohmann-json, PCRE2)
    raise ImportError("etr was built without the LLM runner (extension/tokenizers needs "
                      "nlohmann-json and PCRE2)")

#: Raised for every failure; ``.code`` is the etr::Error name, ``.message`` the reason.
Error = _etr.Error
GenerationConfig = _etr.llm.GenerationConfig
Stats = _etr.llm.Stats
TextLLMRunner = _etr.llm.TextLLMRunner

__all__ = ["Error", "GenerationConfig", "Stats", "TextLLMRunner"]

"""etr: Python bindings of the etr runtime for ExecuTorch .pte programs.

The API lives in :mod:`etr.runtime` and mirrors the official
``executorch.runtime`` (``Runtime.get().load_program(...).load_method(...)``)::

    from etr.runtime import Runtime

and :mod:`etr.llm` runs LLMs from ExecuTorch's LLM exporter, with the shape of
the official ``executorch.extension.llm.runner``::

    from etr.llm import GenerationConfig, TextLLMRunner

and :mod:`etr.portable_lib` has the older
``executorch.extension.pybindings.portable_lib`` entry points
(``_load_for_executorch``, ``_load_for_executorch_from_buffer``, bundled programs).
"""

__all__ = ["portable_lib", "runtime"]  # etr.llm: imported on its own (it needs the tokenizers)

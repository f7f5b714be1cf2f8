"""etr: Python bindings of the etr runtime for ExecuTorch .pte programs.

The API lives in :mod:`etr.runtime` and mirrors the official
``executorch.runtime`` (``Runtime.get().load_program(...).load_method(...)``)::

    from etr.runtime import Runtime

and :mod:`etr.llm` runs LLMs from ExecuTorch's LLM exporter, with the shape of
the official ``executorch.extension.llm.runner``::

    from etr.llm import GenerationConfig, TextLLMRunner
"""

__all__ = ["runtime"]  # etr.llm: imported on its own (it needs the tokenizers)

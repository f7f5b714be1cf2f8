"""etr: Python bindings of the etr runtime for ExecuTorch .pte programs.

The API lives in :mod:`etr.runtime` and mirrors the official
``executorch.runtime`` (``Runtime.get().load_program(...).load_method(...)``)::

    from etr.runtime import Runtime
"""

__all__ = ["runtime"]

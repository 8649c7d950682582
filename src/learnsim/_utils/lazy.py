"""Names of a package loaded on first use (PEP 562), as SciPy and scikit-image export theirs.

A package's ``__init__`` that imported its modules would make every import of one of its light
helpers (the index's tokenizer in :mod:`learnsim.text`, the saved duplicate rule in
:mod:`learnsim.matching`) pay for the whole package, scikit-learn included: about a second on a
command line that needs none of it.
"""
import importlib

__all__ = ["attach"]


def attach(package, where):
    """``(__getattr__, __dir__)`` for ``package`` (its ``__name__``), exporting each name of
    ``where`` (``{name: ".module"}``) from that module of the package on first use."""
    def __getattr__(name):
        if name in where:
            value = getattr(importlib.import_module(where[name], package), name)
            setattr(importlib.import_module(package), name, value)   # once: later uses are plain
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(vars(importlib.import_module(package))) | set(where))

    return __getattr__, __dir__

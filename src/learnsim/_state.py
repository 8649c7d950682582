"""The state of a transformer nested in another learnsim object's saved state.

A matcher (:mod:`learnsim.matching`), a :class:`~learnsim.hybrid.HybridEmbedding` and the pair
classifier all save the transformer they wrap inside their own state: its class path and
metadata under ``"transformer"``, its arrays under names prefixed with ``"transformer."``. The
helpers live here, below all three, so that none of them imports another just for this
(``hybrid`` used to import them from ``matching``, which imports ``hybrid``).
"""
from __future__ import annotations

_TRANSFORMER_PREFIX = "transformer."


def _transformer_state(transformer):
    """(meta, arrays) of the transformer nested in a matcher's state (arrays prefixed)."""
    if transformer is None:
        return None, {}
    cls = type(transformer)
    module = getattr(cls, "__module__", "") or ""
    if not ((module == "learnsim" or module.startswith("learnsim."))
            and callable(getattr(transformer, "_get_state", None))
            and callable(getattr(cls, "_from_state", None))):
        raise TypeError(f"cannot save a matcher whose transformer is a {cls.__module__}.{cls.__qualname__}: "
                        "only learnsim objects that implement _get_state() can be saved with it. "
                        "Save the transformer separately and fit the matcher on its embeddings "
                        "(transformer=None), or save the embeddings")
    meta, arrays = transformer._get_state()
    return ({"class": f"{cls.__module__}.{cls.__qualname__}", "meta": meta},
            {_TRANSFORMER_PREFIX + key: value for key, value in arrays.items()})


def _transformer_from_state(meta, arrays):
    if meta is None:
        if any(key.startswith(_TRANSFORMER_PREFIX) for key in arrays):
            raise ValueError("matcher state has transformer arrays but no transformer metadata")
        return None
    if not (isinstance(meta, dict) and isinstance(meta.get("class"), str) and "meta" in meta):
        raise ValueError("matcher state: 'transformer' must be a dict with 'class' and 'meta'")
    from .persistence import _resolve_class, _restore  # late: persistence is optional for this module

    cls = _resolve_class(meta["class"], "matcher state")
    nested = {key[len(_TRANSFORMER_PREFIX):]: value for key, value in arrays.items()
              if key.startswith(_TRANSFORMER_PREFIX)}
    if not isinstance(meta["meta"], dict):
        raise ValueError("matcher state: the transformer's 'meta' must be a dict")
    return _restore(cls, meta["meta"], nested)

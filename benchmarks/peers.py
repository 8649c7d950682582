"""Peer libraries for benchmarks, with the small compatibility shims they need.

metric-learn 0.7.0 passes ``force_all_finite=`` to scikit-learn's ``check_array`` /
``check_X_y``; scikit-learn 1.8 renamed it ``ensure_all_finite``. We wrap the two functions
inside metric-learn's modules only, translating the keyword, so nothing else is touched.
"""
from __future__ import annotations

import functools
import importlib


def _translate_kwarg(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if "force_all_finite" in kwargs:
            kwargs["ensure_all_finite"] = kwargs.pop("force_all_finite")
        return func(*args, **kwargs)
    wrapper._learnsim_shim = True
    return wrapper


def import_metric_learn():
    """Import metric_learn, patched to run on scikit-learn >= 1.8. Raises ImportError if absent."""
    ml = importlib.import_module("metric_learn")
    import sklearn.utils.validation as skv
    needs_shim = "force_all_finite" not in skv.check_array.__code__.co_varnames
    if needs_shim:
        for modname in ("metric_learn._util", "metric_learn.itml", "metric_learn.scml",
                        "metric_learn.base_metric"):
            try:
                mod = importlib.import_module(modname)
            except ImportError:
                continue
            for name in ("check_array", "check_X_y"):
                f = getattr(mod, name, None)
                if f is not None and not getattr(f, "_learnsim_shim", False):
                    setattr(mod, name, _translate_kwarg(f))
    return ml

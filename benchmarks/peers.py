"""Peer libraries for benchmarks, with the small compatibility shims they need.

metric-learn 0.7.0 passes ``force_all_finite=`` to scikit-learn's ``check_array`` /
``check_X_y``; scikit-learn 1.8 renamed it ``ensure_all_finite``. We wrap the two functions
inside metric-learn's modules only, translating the keyword, so nothing else is touched.

metric-learn 0.7.0's weakly supervised ``SCML`` documents ``basis`` as "'triplet_diffs' or an
array of shape (n_basis, n_features)", but an array fails: ``_initialize_basis`` compares it
with a string (``ValueError: The truth value of an array ... is ambiguous``) and never sets
``n_basis``. We wrap that method so that an array basis is checked and used as documented;
string bases go to the original code unchanged.
"""
from __future__ import annotations

import functools
import importlib

import numpy as np


def _translate_kwarg(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if "force_all_finite" in kwargs:
            kwargs["ensure_all_finite"] = kwargs.pop("force_all_finite")
        return func(*args, **kwargs)
    wrapper._learnsim_shim = True
    return wrapper


def _patch_scml_array_basis():
    try:
        scml = importlib.import_module("metric_learn.scml")
    except ImportError:
        return
    original = scml._BaseSCML._initialize_basis
    if getattr(original, "_learnsim_shim", False):
        return

    @functools.wraps(original)
    def _initialize_basis(self, triplets, X):
        if not isinstance(self.basis, np.ndarray):
            return original(self, triplets, X)
        basis = np.array(self.basis, dtype=np.float64)
        if basis.ndim != 2 or basis.shape[0] == 0 or not np.isfinite(basis).all():
            raise ValueError(f"an SCML basis must be a finite (n_basis, n_features) array; got shape {basis.shape}")
        if basis.shape[1] != X.shape[1]:
            raise ValueError(f"The dimensionality ({basis.shape[1]}) of the provided bases must match the "
                             f"dimensionality of the data ({X.shape[1]}).")
        return basis, basis.shape[0]

    _initialize_basis._learnsim_shim = True
    scml._BaseSCML._initialize_basis = _initialize_basis


def import_metric_learn():
    """Import metric_learn, patched to run on scikit-learn >= 1.8 and to accept SCML array bases.
    Raises ImportError if absent."""
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
    _patch_scml_array_basis()
    return ml


def require_metric_learn():
    """:func:`import_metric_learn`, or exit with the install hint (for the benchmark scripts)."""
    try:
        return import_metric_learn()
    except ImportError:
        raise SystemExit("metric-learn is not installed: pip install learnsim[bench]") from None


def run_with_threads(run, args):
    """``run(args)`` under a BLAS thread limit of ``args.threads`` (None: no limit)."""
    if args.threads is None:
        return run(args)
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=args.threads):
        return run(args)

"""Small UCI data sets, from scikit-learn's bundled copies."""
from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

_UCI_LOADERS = {
    "iris": "load_iris",
    "wine": "load_wine",
    "breast_cancer": "load_breast_cancer",
    "digits": "load_digits",
}


def load_uci(name):
    """Load a small UCI data set from scikit-learn's bundled copies.

    Parameters
    ----------
    name : {"iris", "wine", "breast_cancer", "digits"}

    Returns
    -------
    Bunch
        ``data`` (float ndarray, n_samples x n_features), ``target`` (int ndarray),
        ``target_names``, ``feature_names`` (where scikit-learn provides them).

    Examples
    --------
    >>> from learnsim.datasets import load_uci
    >>> iris = load_uci("iris")
    >>> iris.data.shape, iris.target[:3]
    ((150, 4), array([0, 0, 0]))
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, one of {sorted(_UCI_LOADERS)}; got {type(name).__name__}")
    key = name.strip().lower().replace("-", "_")
    if key not in _UCI_LOADERS:
        raise ValueError(f"unknown UCI data set {name!r}; choose one of {sorted(_UCI_LOADERS)}")
    import sklearn.datasets

    raw = getattr(sklearn.datasets, _UCI_LOADERS[key])()
    bunch = Bunch(
        data=np.asarray(raw.data, dtype=np.float64),
        target=np.asarray(raw.target, dtype=np.int64),
        target_names=[str(t) for t in raw.target_names],
    )
    if "feature_names" in raw:
        bunch.feature_names = [str(f) for f in raw.feature_names]
    return bunch

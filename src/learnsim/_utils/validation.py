"""Input checks shared by every module, so that bad input fails early with a message
that names the problem instead of crashing deep inside numpy or scipy."""
from __future__ import annotations

import math
import numbers

import numpy as np
import scipy.sparse as sp


def check_matrix(X, *, name="X", accept_sparse=True, dtype=(np.float64, np.float32),
                 min_samples=1, min_features=1, allow_nan=False, copy=False):
    """Return ``X`` as a 2-D float ndarray or CSR matrix, or raise a clear ``ValueError``.

    Lists of lists are converted; 1-D input is refused (it is ambiguous whether it is one
    sample or one feature). NaN and infinite values are refused unless ``allow_nan``.
    """
    if X is None:
        raise ValueError(f"{name} is None; expected a 2-D array or sparse matrix")
    dtype = tuple(np.dtype(t) for t in (dtype if isinstance(dtype, (tuple, list)) else (dtype,)))
    if isinstance(X, str) or (isinstance(X, (list, tuple)) and X and isinstance(X[0], str)):
        raise TypeError(f"{name} contains text; vectorise it first (e.g. learnsim.text.TextVectorizer)")
    if sp.issparse(X):
        if not accept_sparse:
            raise TypeError(f"{name} is a scipy.sparse matrix, which this method does not accept; "
                            "pass a dense array (X.toarray()) or reduce it first")
        X = sp.csr_matrix(X, copy=copy)
        if X.dtype not in dtype:
            X = X.astype(dtype[0])
        data = X.data
    else:
        try:
            X = np.array(X, copy=copy) if copy else np.asarray(X)
        except (ValueError, TypeError) as exc:  # ragged lists and the like
            raise ValueError(f"{name} could not be read as a 2-D numeric array: {exc}") from None
        if X.dtype.kind == "c":
            raise ValueError(f"Complex data not supported: {name} is complex; expected real values")
        if X.dtype.kind not in "biuf":
            try:
                X = X.astype(np.float64)
            except (ValueError, TypeError) as exc:
                raise type(exc)(f"{name} has non-numeric entries (dtype {X.dtype}): {exc}") from None
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D (n_samples, n_features); got an array of shape {X.shape}"
                             + (". Reshape your data with X.reshape(-1, 1) for one feature or "
                                "X.reshape(1, -1) for one sample" if X.ndim == 1 else ""))
        want = X.dtype if X.dtype in dtype else dtype[0]
        X = np.ascontiguousarray(X, dtype=want)
        data = X
    n, d = X.shape
    if n < min_samples:
        raise ValueError(f"{name} has {n} sample(s); at least {min_samples} required"
                         + (" (empty input)" if n == 0 else ""))
    if d < min_features:
        raise ValueError(f"{name} has {d} feature(s) (shape={X.shape}) while a minimum of "
                         f"{min_features} is required.")
    if not allow_nan and data.size and not np.isfinite(data).all():
        bad = "NaN" if np.isnan(data).any() else "infinite"
        raise ValueError(f"{name} contains {bad} values; clean or impute them first")
    return X


def check_term_counts(X, name="X"):
    """``X`` as a canonical CSR matrix of non-negative integer counts, or a clear error.

    The result may share its arrays with ``X`` (it is copied only when it must be canonicalised),
    so callers never modify it in place.
    """
    if isinstance(X, (sp.csr_matrix, sp.csr_array)) and X.dtype in (np.float32, np.float64) and min(X.shape) >= 1:
        # the common case, e.g. one query at a time: check_matrix would rebuild the CSR object,
        # which costs as much as scoring a small query; only its finiteness check applies here
        if X.data.size and not np.isfinite(X.data).all():
            bad = "NaN" if np.isnan(X.data).any() else "infinite"
            raise ValueError(f"{name} contains {bad} values; clean or impute them first")
    else:
        X = check_matrix(X, name=name)
        if not sp.issparse(X):
            X = sp.csr_matrix(X)
    data = X.data
    if data.size:
        if (data < 0).any():
            raise ValueError(f"{name} contains negative values; term counts (e.g. "
                             "TextVectorizer(weighting='tf') output) are never negative")
        if (np.mod(data, 1.0) != 0).any():
            raise ValueError(f"{name} contains non-integer values; expected raw term counts (e.g. "
                             "TextVectorizer(weighting='tf') output), not weighted or normalised vectors")
        if not X.has_canonical_format or not data.all():
            X = X.copy()
            X.sum_duplicates()
            X.eliminate_zeros()
    return X


def check_n_features(X, expected, *, name="X", owner="the model"):
    if X.shape[1] != expected:
        raise ValueError(f"{name} has {X.shape[1]} features, but {owner} is expecting {expected} "
                         "features as input (the number it was fitted with)")


def check_random_state(seed):
    if seed is None or isinstance(seed, numbers.Integral):
        if seed is not None and seed < 0:   # numpy's own words name no parameter
            raise ValueError(f"random_state must be None, an int >= 0 or a numpy Generator; got {seed}")
        return np.random.default_rng(seed)
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.RandomState):
        return np.random.default_rng(seed.randint(2**31 - 1))
    raise TypeError(f"random_state must be None, an int >= 0 or a numpy Generator; got {type(seed).__name__}")


def check_integral_indices(arr, name):
    """``arr`` as int64 indices, or a ``ValueError`` naming the bad value.

    Integral floats are accepted. A value beyond int64 is reported as given: the int64 copy
    would wrap ``2**64 - 1`` round to ``-1`` and blame a negative index the user never wrote.

    Parameters
    ----------
    arr : ndarray
    name : str
        What the indices are, for messages.

    Returns
    -------
    ndarray of int64
    """
    if arr.dtype.kind not in "iu" and not (arr.dtype.kind == "f" and np.isfinite(arr).all()
                                           and np.all(np.mod(arr, 1) == 0)):
        raise ValueError(f"{name} must hold integer indices into the rows of X; got dtype {arr.dtype}")
    if arr.size and arr.max() >= 2**63:
        raise ValueError(f"{name} contains index {int(arr.max())}, larger than any number of items")
    return arr.astype(np.int64, copy=False)


def check_indices(idx, n, *, name="indices", width=None):
    """Check an integer index array against a collection of ``n`` items.

    Returns
    -------
    ndarray of int64

    Raises
    ------
    ValueError
        If ``idx`` is empty, not integral, of the wrong width, or holds an index outside
        ``[0, n)`` (reported as given, e.g. ``2**64 - 1`` for a uint64 array).
    """
    arr = np.asarray(idx)
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if arr.dtype.kind not in "iu" and not (arr.dtype.kind == "f" and np.all(np.mod(arr, 1) == 0)):
        raise ValueError(f"{name} must be integers indexing into X; got dtype {arr.dtype}")
    if width is not None and (arr.ndim != 2 or arr.shape[1] != width):
        raise ValueError(f"{name} must have shape (n, {width}); got {arr.shape}")
    lo, hi = arr.min(), arr.max()
    if lo < 0 or hi >= n:
        # an index is input like any other, so a bad one is a ValueError, as in scikit-learn;
        # int() of the numpy scalar keeps a uint64 such as 2**64 - 1 as itself
        bad = lo if lo < 0 else hi
        raise ValueError(f"{name} contains index {int(bad)}, out of range for {n} items")
    return arr.astype(np.int64, copy=False)


def check_no_overflow(values, what, source="X"):
    """Raise a ``ValueError`` naming ``what`` when ``values``, computed from finite input, hold
    inf or NaN.

    Called where a quantity is formed (a scatter, a Gram matrix), so that the error names the
    step that overflowed instead of letting a later solver blame the user's finite input for
    containing infs.

    Parameters
    ----------
    values : array-like or float
    what : str
        The quantity, e.g. ``"the within-cluster scatter"``.
    source : str
        The input it was computed from.

    Returns
    -------
    values, unchanged

    Raises
    ------
    ValueError
        If ``values`` holds inf or NaN.
    """
    if not np.isfinite(values).all():
        raise ValueError(f"{what} overflowed to inf/NaN: {source} holds values too large in magnitude "
                         f"for float64 arithmetic; rescale {source} (e.g. normalise its rows)")
    return values


# ------------------------------------------------------------------------ saved states
# A model file can be edited and its checksums recomputed, so a state read back from one is
# input like any other: what ``_from_state`` accepts must satisfy what ``fit`` guarantees.

def _nonfinite_word(value):
    return "NaN" if np.isnan(value) else ("inf" if value > 0 else "-inf")


def _walk_numbers(value, path):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk_numbers(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _walk_numbers(item, f"{path}[{i}]")
    elif isinstance(value, float):
        yield path, value


def check_state_values(owner, meta, arrays, *, allow_nonfinite=(), nested=()):
    """Refuse NaN and infinite values anywhere in a saved state.

    Every number of ``meta`` (nested dicts and lists included) and every float array of
    ``arrays`` (the data of sparse ones too) must be finite, except the fields named in
    ``allow_nonfinite``, which ``fit`` itself may leave non-finite (e.g. a threshold of inf).
    The parts of a nested object's state (meta entry ``name`` and arrays ``name.*`` for
    ``name`` in ``nested``) are left to that object's own check.

    Parameters
    ----------
    owner : str
        The class, for messages.
    meta : dict
    arrays : dict of ndarray or sparse matrix
    allow_nonfinite, nested : iterables of str

    Raises
    ------
    ValueError
        Naming the field and what it holds.
    """
    skip = set(allow_nonfinite) | set(nested)
    for key, item in meta.items():
        if key in skip:
            continue
        for path, value in _walk_numbers(item, str(key)):
            if not np.isfinite(value):
                raise ValueError(f"{owner} state: meta entry {path!r} is {_nonfinite_word(value)}; "
                                 "a fitted model holds finite numbers there")
    prefixes = tuple(f"{name}." for name in nested)
    for key, value in arrays.items():
        if key in skip or key.startswith(prefixes):
            continue
        data = value.data if sp.issparse(value) else np.asarray(value)
        if data.dtype.kind in "fc" and data.size and not np.isfinite(data).all():
            bad = data[~np.isfinite(data)].ravel()[0]
            word = _nonfinite_word(bad) if data.dtype.kind == "f" else "a non-finite value"
            raise ValueError(f"{owner} state: array {key!r} contains {word}; a fitted model holds "
                             "finite values there")


def state_array(arrays, key, owner, *, shape=None, ndim=None, kind="f", low=None, high=None,
                low_open=False, optional=False):
    """The array ``key`` of a saved state, checked as ``fit`` would have left it.

    Parameters
    ----------
    arrays : dict
    key : str
    owner : str
        The class, for messages.
    shape : tuple, optional
        The exact shape required.
    ndim : int, optional
        The number of dimensions required (when the shape is not known in advance).
    kind : str
        Allowed numpy dtype kinds, ``"f"`` (float) or ``"iu"`` (integers).
    low, high : float, optional
        Bounds every value must respect (``low`` excluded when ``low_open``).
    optional : bool
        Return None when ``key`` is absent instead of raising.

    Returns
    -------
    ndarray or None

    Raises
    ------
    ValueError
        Naming ``key`` and what is wrong with it.
    """
    if key not in arrays:
        if optional:
            return None
        raise ValueError(f"{owner} state lacks the array {key!r}")
    arr = arrays[key]
    if sp.issparse(arr) or not isinstance(arr, np.ndarray):
        raise ValueError(f"{owner} state: array {key!r} must be a dense ndarray; got {type(arr).__name__}")
    if arr.dtype.kind not in kind:
        raise ValueError(f"{owner} state: array {key!r} has dtype {arr.dtype}; expected "
                         + ("floats" if kind == "f" else "integers"))
    if shape is not None and arr.shape != tuple(shape):
        raise ValueError(f"{owner} state: array {key!r} has shape {arr.shape}; expected {tuple(shape)}")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{owner} state: array {key!r} must be {ndim}-D; got shape {arr.shape}")
    if arr.size:
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            bad = arr[~np.isfinite(arr)].ravel()[0]
            raise ValueError(f"{owner} state: array {key!r} contains {_nonfinite_word(bad)}; "
                             "a fitted model holds finite values there")
        lo, hi = arr.min(), arr.max()
        if low is not None and (lo <= low if low_open else lo < low):
            raise ValueError(f"{owner} state: array {key!r} contains {lo}; its values must be "
                             f"{'>' if low_open else '>='} {low}")
        if high is not None and hi > high:
            raise ValueError(f"{owner} state: array {key!r} contains {hi}; its values must be <= {high}")
    return arr


def state_number(meta, key, owner, *, integer=False, low=None, high=None, low_open=False,
                 allow_none=False):
    """The number ``meta[key]`` of a saved state: finite, of the right type, within bounds.

    Parameters
    ----------
    meta : dict
    key : str
    owner : str
        The class, for messages.
    integer : bool
        Require an int (a bool is never accepted as a number).
    low, high : float, optional
        Bounds (``low`` excluded when ``low_open``).
    allow_none : bool
        Accept None (returned as is).

    Returns
    -------
    int, float or None

    Raises
    ------
    ValueError
        Naming ``key`` and the value found.
    """
    if key not in meta:
        raise ValueError(f"{owner} state lacks the metadata entry {key!r}")
    value = meta[key]
    if value is None and allow_none:
        return None
    wanted = numbers.Integral if integer else numbers.Real
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, wanted):
        raise ValueError(f"{owner} state: {key} must be {'an integer' if integer else 'a number'}; "
                         f"got {value!r}")
    try:
        value = int(value) if integer else float(value)
    except OverflowError:
        raise ValueError(f"{owner} state: {key} = {value!r} is out of range") from None
    if not integer and not math.isfinite(value):
        raise ValueError(f"{owner} state: {key} is {_nonfinite_word(value)}; a fitted model holds a "
                         "finite number there")
    if (low is not None and (value <= low if low_open else value < low)) or (high is not None and value > high):
        interval = f"{'(' if low_open else '['}{'-inf' if low is None else low}, {'inf' if high is None else high}]"
        raise ValueError(f"{owner} state: {key} = {value!r} is outside {interval}")
    return value


def check_state_header(name, meta, arrays, version, required=(), *, version_optional=False):
    """The checks every ``_from_state`` starts with: a (dict, dict) state, the state version
    this learnsim reads (a state without one is taken as current where ``version_optional``,
    for files written before versions were recorded) and the metadata keys ``required``."""
    if not isinstance(meta, dict) or not isinstance(arrays, dict):
        raise ValueError(f"{name} state must be a (dict, dict) pair of metadata and arrays")
    found = meta.get("state_version", version) if version_optional else meta.get("state_version")
    if found != version:
        raise ValueError(f"{name} state has version {meta.get('state_version')!r}; this learnsim reads "
                         f"version {version}")
    missing = [key for key in required if key not in meta]
    if missing:
        raise ValueError(f"{name} state is missing metadata keys {missing}")

"""What :mod:`learnsim.distributed.methods` shares between its fits: the collection (a dask array
of full-width row blocks) checked, its blocks read and checked on the workers, sums reduced as a
tree, and the truncated SVD by a randomised subspace iteration whose products are such sums. Dask is imported inside
functions only.
"""
from __future__ import annotations

import contextlib
import numbers

import numpy as np
import scipy.sparse as sp

from .._utils.linalg import first_largest_abs_rows
from ..film import FILM

# Subspace iterations of the truncated SVD (each a pass of X^T X, QR-normalised). The error of
# the subspace falls like (sigma_{r+p+1} / sigma_r)^(2q): measured on the tests' corpus (gap
# ratio about 0.3 at the rank), 4 iterations left 3e-4 in FILM's map, 6 1.5e-6, 8 5e-9, 10 5e-10.
DEFAULT_POWER_ITERATIONS = 10
# Rows of a partition centred and multiplied at a time (bounds a worker's dense buffer).
_ROW_STEP = 4096
# Columns beyond the rank that the subspace iteration carries (svd_compressed's default).
_OVERSAMPLES = 10



def _dask():
    """dask and dask.array, or an ImportError naming the extra."""
    try:
        import dask
        import dask.array as da
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("learnsim.distributed needs Dask: pip install learnsim[dask]") from exc
    return dask, da


# ------------------------------------------------------------------------ the collection
def from_local(X, rows_per_partition):
    """A local matrix as the shared representation: a dask array of full-width row blocks.

    Parameters
    ----------
    X : scipy.sparse matrix or 2-D ndarray (n_documents, n_features)
    rows_per_partition : int
        Rows per block (the last block may be shorter).

    Returns
    -------
    dask.array.Array
        Blocks are ``scipy.sparse.csr_matrix`` (sparse X) or ndarrays, one column chunk.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from learnsim.distributed import from_local
    >>> X = sp.random(60, 40, density=0.1, format="csr", random_state=0)
    >>> Xd = from_local(X, 25)
    >>> Xd.shape, Xd.chunks
    ((60, 40), ((25, 25, 10), (40,)))
    >>> block = Xd.blocks[2].compute(scheduler="synchronous")
    >>> type(block).__name__, block.shape
    ('csr_matrix', (10, 40))
    >>> from_local(np.ones((5, 3)), 2).chunks        # a dense matrix: ndarray blocks
    ((2, 2, 1), (3,))
    """
    dask, da = _dask()
    if isinstance(rows_per_partition, bool) or not isinstance(rows_per_partition, numbers.Integral) \
            or rows_per_partition < 1:
        raise ValueError(f"rows_per_partition must be a positive integer; got {rows_per_partition!r}")
    sparse = sp.issparse(X)
    X = sp.csr_matrix(X) if sparse else np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_documents, n_features); got shape {X.shape}")
    n, d = X.shape
    meta = sp.csr_matrix((0, d), dtype=X.dtype) if sparse else np.empty((0, d), dtype=X.dtype)
    parts = [da.from_delayed(dask.delayed(X[a:min(a + rows_per_partition, n)]),
                             shape=(min(a + rows_per_partition, n) - a, d), dtype=X.dtype, meta=meta)
             for a in range(0, max(n, 1), rows_per_partition)]
    return da.concatenate(parts, axis=0) if len(parts) > 1 else parts[0]


class _Collection:
    """A validated collection: its delayed row blocks, their row offsets and whether they are
    sparse. The blocks' contents are checked where they are read (:func:`_read_block`)."""

    def __init__(self, X, name, caller):
        dask, da = _dask()
        if not isinstance(X, da.Array):
            kind = "a scipy.sparse matrix" if sp.issparse(X) else type(X).__name__
            raise TypeError(f"{caller} needs {name} as a dask.array.Array of row blocks; got {kind}. Use "
                            f"learnsim.distributed.from_local({name}, rows_per_partition) for a local matrix, "
                            "or the estimator's own fit")
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D (n_documents, n_features); got shape {X.shape}")
        if any(np.isnan(c) for c in X.chunks[0]):
            raise ValueError(f"{name} has unknown row chunk sizes; give them (e.g. shape= in "
                             "dask.array.from_delayed, or X.compute_chunk_sizes())")
        if X.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real numbers; got dtype {X.dtype}")
        self.sparse = sp.issparse(X._meta)
        if len(X.chunks[1]) != 1:
            if self.sparse:
                raise ValueError(f"{name} must be made of full-width row blocks (one column chunk); got "
                                 f"{len(X.chunks[1])} column chunks")
            X = X.rechunk({1: -1})
        self.shape = tuple(int(v) for v in X.shape)
        self.sizes = np.asarray(X.chunks[0], dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)])
        self.blocks = list(X.to_delayed(optimize_graph=False).ravel())
        self.name = name
        self.array = X

    def spans(self):
        """(index, start, stop) of every partition's rows."""
        return [(i, int(self.offsets[i]), int(self.offsets[i + 1])) for i in range(len(self.blocks))]


def _read_block(block, shape, index, name, dtype=None):
    """A partition as a CSR matrix or C-contiguous ndarray of floats, checked like ``fit``
    checks X: a block of the wrong type or shape, or with NaN or infinite values, is an error
    that names the partition."""
    where = f"{name} partition {index}"
    if sp.issparse(block):
        out = sp.csr_matrix(block)
        if out.dtype.kind not in "biuf":
            raise TypeError(f"{where} must hold real numbers; got dtype {out.dtype}")
        if out.dtype.kind != "f" or (dtype is not None and out.dtype != dtype):
            out = out.astype(dtype or np.float64)
        data = out.data
    elif isinstance(block, np.ndarray):
        if block.dtype.kind not in "biuf":
            raise TypeError(f"{where} must hold real numbers; got dtype {block.dtype}")
        want = dtype or (block.dtype if block.dtype.kind == "f" else np.float64)
        out = data = np.ascontiguousarray(block, dtype=want)
    else:
        raise TypeError(f"{where} is a {type(block).__name__}; expected a scipy.sparse matrix or an ndarray")
    if out.shape != tuple(shape):
        raise ValueError(f"{where} has shape {out.shape}, but the dask array declares {tuple(shape)}")
    if data.size and not np.isfinite(data).all():
        bad = "NaN" if np.isnan(data).any() else "infinite"
        raise ValueError(f"{where} contains {bad} values; clean or impute them first")
    return out


def _columns(block, active, n_features):
    return block if active.size == n_features else block[:, active]


def _dense_rows(block, start, stop):
    part = block[start:stop]
    return part.toarray() if sp.issparse(part) else np.asarray(part)


def _local_labels(y, n, name):
    """Labels or triplets as a numpy array on the driver (they are small: one per row)."""
    _, da = _dask()
    if isinstance(y, da.Array):
        y = y.compute()
    if y is None:
        raise ValueError(f"{name} is None; give one cluster label per row of X")
    return y


def _on(client):
    """Run the fit's computations on ``client`` (a ``distributed.Client``), else on Dask's
    current scheduler (the default client, if any)."""
    dask, _ = _dask()
    if client is None:
        return contextlib.nullcontext()
    if not hasattr(client, "compute") or not hasattr(client, "gather"):
        raise TypeError(f"client must be a distributed.Client; got {type(client).__name__}")
    return dask.config.set(scheduler=client)


def _compute(*tasks):
    dask, _ = _dask()
    return dask.compute(*tasks, optimize_graph=False)   # see learnsim.distributed._dask.compute


def _check_power_iter(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"n_power_iter must be an integer >= 0; got {value!r}")
    return int(value)


def _fixed_settings(params, caller, what):
    """Refuse the settings that need held-out fits: "auto" values and ``baseline_holdout``."""
    auto = sorted(k for k in what if isinstance(params.get(k, "auto"), str) and params.get(k, "auto") == "auto")
    if auto:
        raise ValueError(f"{caller} fits fixed settings; {', '.join(auto)} is 'auto' (the default). Give "
                         "values, e.g. those a single-process fit chose on a sample of the collection")
    if params.get("baseline_holdout", "unset") is not None:
        raise ValueError(f"{caller} does not run the held-out check against the baseline; pass "
                         "baseline_holdout=None (the check fits and scores on held-out clusters: run it "
                         "with a single-process fit on a sample)")


def _tree_sum(tasks):
    """The sum of delayed arrays, added pairwise on the workers (only the total comes back)."""
    dask, _ = _dask()
    add = dask.delayed(np.add)
    while len(tasks) > 1:
        tasks = [add(tasks[i], tasks[i + 1]) if i + 1 < len(tasks) else tasks[i] for i in range(0, len(tasks), 2)]
    return _compute(tasks[0])[0]


def _normalized_block(block, shape, index, name):
    """The partition with every non-zero row scaled to unit length (FILM's own formula, so that
    the rows are bit-identical to the single-process fit's)."""
    X = _read_block(block, shape, index, name, dtype=np.float64)
    return FILM._normalize_rows(X, FILM._row_norms(X))


def _svd_part(block, shape, index, active, normalize):
    X = _normalized_block(block, shape, index, "X") if normalize else _read_block(block, shape, index, "X")
    return _columns(X, active, shape[1])


def _normal_product(block, shape, index, active, normalize, Z):
    """A_p^T (A_p Z) of one partition: a width x l array, whatever the partition's rows."""
    A = _svd_part(block, shape, index, active, normalize)
    return np.asarray(A.T @ np.asarray(A @ Z))


def _left_part(block, shape, index, active, normalize, M):
    """A_p M: the partition's rows of the left singular vectors (M = V / s)."""
    return np.asarray(_svd_part(block, shape, index, active, normalize) @ M)


def _svd(coll, active, k, n_power_iter, seed, normalize=False, left=True):
    """Top-k SVD (U as a dask array with X's row chunks, or None when not ``left``; s; Vt) of
    X[:, active] (rows L2-normalised when ``normalize``), with the signs of
    :func:`learnsim._linalg.truncated_svd_with_u` (largest |loading| of each row of Vt positive).

    Randomised subspace iteration [3]_ on A^T A, every product a sum of per-partition products
    A_p^T (A_p Z) added as a tree: only width x (k + 10) arrays travel, whatever the number of
    partitions. (``dask.array.linalg.svd_compressed`` gathers every partition's rows into the
    task of its A^T Q product: at 5M documents in 100 partitions, a 2.5 GiB task over a 2 GiB
    worker.) Z starts as the orthonormalised A^T A Omega; each of the ``n_power_iter``
    iterations multiplies by A^T A and orthonormalises again (QR on the driver), so that
    Z spans (A^T A)^(q+1) Omega, the row space of ``svd_compressed``'s B = Q^T A. The last pass
    gives Z^T A^T A Z, whose eigenvectors W and eigenvalues s^2 are the Rayleigh-Ritz values:
    V = Z W. Singular values below sqrt(eps) of the largest are lost to the square (the callers
    drop them: FILM below 1e-6, the basis below its Gram tolerance).
    """
    dask, da = _dask()
    n, n_features = coll.shape
    width = active.size
    ell = int(min(k + _OVERSAMPLES, width, max(n, 1)))
    spans = coll.spans()
    # the active features are one key, read by every product's tasks: a copy in each task sent
    # 14 x 64 kB more at 16 partitions than at 2 for 8,000 features, every product again
    active_d = dask.delayed(active, pure=True)
    args = [(b, (e - s, n_features), i, active_d, normalize) for b, (i, s, e) in zip(coll.blocks, spans)]

    def times_normal(Z):
        shared = dask.delayed(Z, pure=True)      # one key, not a copy in every task
        return _tree_sum([dask.delayed(_normal_product)(*a, shared) for a in args])

    Z = np.random.default_rng(seed).standard_normal((width, ell))
    for _ in range(int(n_power_iter) + 1):
        Z, _ = np.linalg.qr(times_normal(Z))
    G = times_normal(Z)
    M = Z.T @ G
    lam, W = np.linalg.eigh((M + M.T) / 2.0)
    lam, W = lam[::-1][:k], W[:, ::-1][:, :k]
    s = np.sqrt(np.maximum(lam, 0.0))
    V = Z @ W
    signs = np.sign(V[first_largest_abs_rows(V), np.arange(V.shape[1])])
    signs[signs == 0] = 1.0
    V *= signs[None, :]
    if not left:
        return None, s, V.T
    with np.errstate(divide="ignore"):
        M_left = dask.delayed(V / np.where(s > 0, s, np.inf)[None, :], pure=True)
    blocks = [da.from_delayed(dask.delayed(_left_part)(*a, M_left), shape=(e - s0, V.shape[1]), dtype=np.float64)
              for a, (_, s0, e) in zip(args, spans)]
    U = da.concatenate(blocks, axis=0) if len(blocks) > 1 else blocks[0]
    return U.persist(), s, V.T

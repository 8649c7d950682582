"""Linear algebra shared by the vectoriser (LSI) and the metric learners."""
from __future__ import annotations

import contextlib
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.linalg
import scipy.linalg.blas
import scipy.sparse as sp
from sklearn.utils.extmath import randomized_svd, svd_flip

try:  # scipy's kernels for sparse x dense products (private; see _add_product)
    from scipy.sparse._sparsetools import csc_matvecs as _csc_matvecs, csr_matvecs as _csr_matvecs
except ImportError:  # pragma: no cover - then the public operator is used
    _csc_matvecs = _csr_matvecs = None

# Below this many entries a dense SVD is cheap and exact.
_DENSE_SVD_MAX_ELEMENTS = 1_000_000
# A large share of the rank is wanted: a dense SVD beats the randomised one up to this size.
_DENSE_SVD_LARGE_RANK_MAX_ELEMENTS = 60_000_000
# With few rows, the Gram matrix X X^T gives the right singular vectors exactly and cheaply.
_GRAM_MAX_ROWS = 6000
# Randomised SVD of a sparse X (see _sparse_randomized_svd): extra columns of the random start
# (scikit-learn's default) and applications of X^T X. Its Rayleigh-Ritz step uses the subspace
# (X^T X)^q Omega, a polynomial of degree 2 q + 1 in the singular values for the left factor,
# like the 2 n_iter + 1 of scikit-learn's randomized_svd; q = 8 is one degree above its
# n_iter=7 (its default at this rank), because its final projection is onto the left subspace.
_OVERSAMPLES = 10
_SPARSE_POWER_ITERATIONS = 8
# Eigenvalues of the Gram matrix below this fraction of the largest are rounding noise (its
# entries carry errors of about eps * sigma_1^2): their singular values are set to zero.
_GRAM_EIGENVALUE_TOL = 1e3 * np.finfo(np.float64).eps
# The sparse products M @ Q run in row blocks with results of at most this many bytes each.
# M^T M Q runs in this many row groups of M (threads), each summing into its own n x w float64
# array, fewer where those would take more than the budget.
_BLOCK_BYTES = 8 * 2**20
_SCATTER_GROUPS = 4
_SCATTER_BUDGET_BYTES = 2 * 2**30
# Dense products and eigenproblems of at most this many flops (about 0.1 s on one core) run on
# one BLAS thread (see small_blas); so does all of a randomised SVD whose n x width^2 is below it.
_SMALL_BLAS_FLOPS = 2**28


def _gram_is_cheaper(X, k, n_iter=7, n_oversamples=10):
    """Rough flop counts: the Gram route costs the product X X^T and an n x n eigenproblem;
    the randomised SVD costs 2 * n_iter + 2 passes over X with k + p vectors plus QRs."""
    n = X.shape[0]
    nnz = X.nnz if sp.issparse(X) else X.size
    gram = nnz * min(n, nnz / max(X.shape[1], 1)) + 4.0 * n ** 3
    width = k + n_oversamples
    randomized = (2 * n_iter + 2) * nnz * width + (n_iter + 1) * 2.0 * (n + X.shape[1]) * width ** 2
    return gram <= randomized


def truncated_svd(X, k, seed=0, n_iter=_SPARSE_POWER_ITERATIONS):
    """Top-``k`` singular values and right singular vectors (rows of Vt) of dense or sparse X.

    Exact (dense SVD, or the eigenvectors of X X^T for few rows) where that is cheap, else
    randomised (Halko et al.). Signs are fixed (largest |loading| positive) so that results
    are reproducible. ``k`` must not exceed ``min(X.shape)``. ``n_iter``: the power iterations
    of the sparse randomised route.
    """
    _, s, Vt = truncated_svd_with_u(X, k, seed, n_iter)
    return s, Vt


def _exact_route(X, k):
    """Which exact route :func:`truncated_svd_with_u` takes for X and k ("dense", "gram"), or
    None for the randomised one."""
    n, m = X.shape
    size = n * m
    if size <= _DENSE_SVD_MAX_ELEMENTS or (2 * k >= min(n, m) and size <= _DENSE_SVD_LARGE_RANK_MAX_ELEMENTS):
        return "dense"
    if n <= _GRAM_MAX_ROWS and _gram_is_cheaper(X, k):
        return "gram"
    return None


def svd_is_exact(X, k):
    """Whether :func:`truncated_svd_with_u` of X and k is exact, so that its result does not
    depend on its ``seed`` (a caller may reuse it for the same X)."""
    return _exact_route(X, k) is not None


def truncated_svd_with_u(X, k, seed=0, n_iter=_SPARSE_POWER_ITERATIONS):
    """Like :func:`truncated_svd`, but also returns the left singular vectors:
    ``(U, s, Vt)`` with U of shape (n, k), so that ``X ~ U diag(s) Vt``.

    The signs of U and Vt are flipped together, so the product is unchanged. In the Gram route a
    zero singular value has a zero row of Vt (its U column is still a unit eigenvector).
    """
    n = X.shape[0]
    route = _exact_route(X, k)
    if route == "dense":
        dense = X.toarray() if sp.issparse(X) else np.asarray(X)
        dense = dense.astype(np.float64, copy=False)
        try:
            U, s, Vt = scipy.linalg.svd(dense, full_matrices=False, lapack_driver="gesdd")
        except np.linalg.LinAlgError:  # gesdd occasionally fails to converge; gesvd is slower but robust
            U, s, Vt = scipy.linalg.svd(dense, full_matrices=False, lapack_driver="gesvd")
        U, s, Vt = U[:, :k], s[:k], Vt[:k]
    elif route == "gram":
        K = X @ X.T
        K = K.toarray() if sp.issparse(K) else np.asarray(K)
        lam, U = scipy.linalg.eigh(K.astype(np.float64, copy=False), subset_by_index=(n - k, n - 1))
        lam, U = lam[::-1], U[:, ::-1]
        s = np.sqrt(np.maximum(lam, 0.0))
        safe = np.where(s > 0, s, 1.0)
        Vt = np.asarray((X.T @ U).T) / safe[:, None]
        Vt[s == 0] = 0.0
    elif sp.issparse(X):
        U, s, Vt = _sparse_randomized_svd(X, k, seed, n_iter)
    else:
        U, s, Vt = randomized_svd(X.astype(np.float64), k, random_state=seed, flip_sign=False)
    U, Vt = svd_flip(U, Vt, u_based_decision=False)
    return U, s, Vt


def truncated_svd_components(X, k, seed=0, n_iter=_SPARSE_POWER_ITERATIONS, all_ritz_pairs=False):
    """Like :func:`truncated_svd`, but returns ``(s, V)`` with the right singular vectors as the
    C-contiguous columns of V (n_features x k): bit for bit ``truncated_svd(X, k, seed)[1].T``.

    For a sparse X wider than tall (text: more terms than documents) the randomised route
    computes V itself, column-major to Vt, so this skips the two transposed copies of an
    n_features x k array that ``ascontiguousarray(Vt.T)`` and the route's own ``left.T`` cost
    (a quarter of a rank-256 basis on 20 Newsgroups). ``n_iter``: the power iterations of that
    route (the others are exact, or scikit-learn's randomized SVD). ``all_ritz_pairs``: that
    route's Rayleigh-Ritz step solves for every pair (see :func:`_sparse_randomized_factors`),
    which gives the same vectors to rounding, not bit for bit.
    """
    n, m = X.shape
    if _exact_route(X, k) is not None or not sp.issparse(X):
        s, Vt = truncated_svd(X, k, seed, n_iter)
        return s, np.ascontiguousarray(Vt.T)
    if m <= n:
        # taller than wide: V is the short side's factor, computed column-major as wanted; the
        # left one (n x k) that truncated_svd computed and dropped, its Vt and the transposed
        # copies are not made (61 + 3 x 39 MB at 30,000 x 19,292, rank 256). truncated_svd's
        # Rayleigh-Ritz step (top k pairs alone), whatever all_ritz_pairs: the same bits as before
        _, s, V = _sparse_randomized_factors(X, k, seed, n_iter, long_side=False)
    else:
        _, s, V = _sparse_randomized_factors(X, k, seed, n_iter, all_ritz_pairs=all_ritz_pairs)
    # svd_flip(U, V.T, u_based_decision=False), on the columns of V: the sign of each column's
    # largest |entry| (the first such, as argmax along the rows of Vt) becomes positive
    top = first_largest_abs_rows(V)
    signs = np.sign(V[top, np.arange(V.shape[1])])
    V *= signs[None, :]
    return s, V


def first_largest_abs_rows(V, step=None):
    """``np.argmax(np.abs(V), axis=0)`` of a C-contiguous V (n x k, n large): the first row of
    each column's largest |entry|.

    numpy's argmax along the rows of a C-contiguous array copies it transposed, after the
    n x k ``abs`` copy: 0.26 s of a rank-256 basis on 20 Newsgroups (70,000 x 256). Row blocks
    take the column maxima along the rows (contiguous) and search a column only where its
    block beats the running maximum: 10x faster, the same rows (ties to the first). Blocks of
    ``step`` rows, by default 2^17 entries (1 MB: a block stays in cache; blocks of 8,192 rows
    took 28 ms on 20,000 x 256, blocks of 512 rows 6).
    """
    step = max(1, 2**17 // max(V.shape[1], 1)) if step is None else step
    best = np.full(V.shape[1], -np.inf)
    top = np.zeros(V.shape[1], dtype=np.int64)
    for start in range(0, V.shape[0], step):
        A = np.abs(V[start:start + step])
        m = A.max(axis=0)
        cols = np.flatnonzero(m > best)
        if cols.size:
            top[cols] = start + (A[:, cols] == m[cols]).argmax(axis=0)
            best[cols] = m[cols]
    return top


_BLAS_CONTROLLER = []


def _blas_controller():
    """threadpoolctl's controller, its libraries found once (a fresh ``threadpool_limits`` or
    ``threadpool_info`` looks them up again: 7 ms, a quarter of a small fit); None without it."""
    if not _BLAS_CONTROLLER:
        try:
            from threadpoolctl import ThreadpoolController
            _BLAS_CONTROLLER.append(ThreadpoolController())
        except Exception:  # threadpoolctl comes with scikit-learn
            _BLAS_CONTROLLER.append(None)
    return _BLAS_CONTROLLER[0]


_SINGLE_BLAS_DEPTH = [0]     # how many _single_blas_thread contexts are open


@contextlib.contextmanager
def _single_blas_thread():
    """A context in which BLAS runs on one thread. Inside another such context it does nothing:
    setting a limit and restoring it costs about 0.1 ms, and MCD's selection opens one around
    hundreds of small scatters and eigenproblems that each asked for one (small_blas). BLAS's
    thread count is the process's, so the depth is too: a thread that enters while another holds
    the limit runs under it (and under BLAS's threads once the other leaves: speed, not results)."""
    controller = _blas_controller()
    if controller is None or _SINGLE_BLAS_DEPTH[0]:
        yield
        return
    with controller.limit(limits=1, user_api="blas"):
        _SINGLE_BLAS_DEPTH[0] += 1
        try:
            yield
        finally:
            _SINGLE_BLAS_DEPTH[0] -= 1


def one_blas_thread():
    """A context in which BLAS runs on one thread (nothing inside another such context), for
    solvers whose work is vector operations of the features' length: BLAS's threads only add
    their start-up, and on a busy machine their spinning made such fits 10-20x slower."""
    return _single_blas_thread()


def small_blas(flops):
    """One BLAS thread for a dense product or eigenproblem of at most ``_SMALL_BLAS_FLOPS``
    (BLAS's own threads where it is larger). On this project's 2-core machine OpenBLAS's
    threads made small problems 10x slower: a 770 x 32 scatter Z^T Z took 3.9 ms, 0.4 on one."""
    return _single_blas_thread() if flops <= _SMALL_BLAS_FLOPS else contextlib.nullcontext()


def _thread_count():
    """Threads for the sparse products: the CPUs this process may use, at most as many as BLAS
    may use (so that a threadpoolctl or OPENBLAS_NUM_THREADS limit applies to them too)."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        n = os.cpu_count() or 1
    controller = _blas_controller()
    blas = [] if controller is None else [
        info["num_threads"] for info in controller.info() if info.get("user_api") == "blas"]
    return max(1, min([n] + blas))


def _row_bounds(indptr, n_parts):
    """Row boundaries that cut a CSR matrix into ``n_parts`` parts of about equal non-zeros
    (always ``n_parts + 1`` boundaries; a part may be empty)."""
    cuts = np.searchsorted(indptr, np.linspace(0, indptr[-1], n_parts + 1)[1:-1])
    return np.concatenate([[0], cuts, [indptr.size - 1]])


def _map(pool, func, items):
    return list(map(func, items) if pool is None else pool.map(func, items))


def _add_product(M, start, stop, Q, out, transposed=False):
    """``out += M[start:stop] @ Q`` (or ``M[start:stop].T @ Q`` when ``transposed``) for a CSR M,
    with Q and out C-contiguous and of M's dtype.

    scipy's sparse times dense product returns a freshly allocated result; touching gigabytes of
    fresh memory at every product of the power iteration costs more than the product itself on
    some machines (measured: 0.2 to 4 s per GB). Its kernels accumulate into a given array, so
    they are called directly where scipy has them.
    """
    if _csr_matvecs is None:
        block = M[start:stop]
        out += block.T @ Q if transposed else block @ Q
        return
    lo, hi = M.indptr[start], M.indptr[stop]
    indptr, indices, data = M.indptr[start:stop + 1] - lo, M.indices[lo:hi], M.data[lo:hi]
    if transposed:   # the CSR arrays of the row block are the CSC arrays of its transpose
        _csc_matvecs(M.shape[1], stop - start, Q.shape[1], indptr, indices, data, Q.ravel(), out.ravel())
    else:
        _csr_matvecs(stop - start, M.shape[1], Q.shape[1], indptr, indices, data, Q.ravel(), out.ravel())


def _sparse_times_dense(M, Q, out, pool):
    """``out[:] = M @ Q`` for a CSR M, in row blocks (threaded); returns out."""
    Q = np.ascontiguousarray(Q, dtype=M.dtype)
    rows = max(1, _BLOCK_BYTES // (Q.shape[1] * out.itemsize))

    def one(start):
        stop = min(start + rows, M.shape[0])
        out[start:stop] = 0.0
        _add_product(M, start, stop, Q, out[start:stop])

    _map(pool, one, range(0, M.shape[0], rows))
    return out


def _gram_times_dense(M, Q, partial, pool, groups=None):
    """``M^T M Q`` for a CSR M (N x n) and a dense Q (n x w), without an N x w intermediate.

    M's rows fall into ``groups`` fixed row groups (default: one per slice of ``partial``,
    shape (slots, n, w)); each group runs in a thread, block by block: the block's rows of M Q
    go to a small buffer that is still in cache when the block scatters M_b^T (M_b Q) into the
    group's slice. The groups' sums are added in group order, so the result does not depend on
    the number of threads. ``partial`` may have fewer slots than groups (as many as threads):
    the groups then run in waves of that many, each wave's sums added to the total before the
    next, the same sums in the same order as with a slot a group (at 30,000 x 19,292 and width
    266 four float64 slots were 160 MB of a 730 MB fit).
    """
    Q = np.ascontiguousarray(Q, dtype=M.dtype)
    rows = max(1, _BLOCK_BYTES // (Q.shape[1] * Q.itemsize))
    groups = partial.shape[0] if groups is None else groups
    bounds = _row_bounds(M.indptr, groups)
    slots = partial.shape[0]

    def one(g):
        out = partial[g % slots]
        out[...] = 0.0
        buffer = np.empty((rows, Q.shape[1]), dtype=Q.dtype)
        for start in range(bounds[g], bounds[g + 1], rows):
            stop = min(start + rows, bounds[g + 1])
            block = buffer[:stop - start]
            block[...] = 0.0
            _add_product(M, start, stop, Q, block)
            _add_product(M, start, stop, block, out, transposed=True)

    total = None
    for first in range(0, groups, slots):
        wave = range(first, min(first + slots, groups))
        _map(pool, one, wave)
        for g in wave:
            if total is None:
                total = partial[g % slots].copy()
            else:
                total += partial[g % slots]
    return total


def _sparse_randomized_svd(X, k, seed, n_iter=_SPARSE_POWER_ITERATIONS, n_oversamples=_OVERSAMPLES):
    """Top-``k`` SVD ``(U, s, Vt)`` of a sparse X by subspace iteration (Halko et al. 2011) on
    its short side only.

    With M = X (or X^T, whichever has more rows) of shape N x n (N >= n): q applications of
    M^T M to a random n x (k + p) start, LU-normalised after each as scikit-learn does, then a
    Rayleigh-Ritz step on the resulting basis Q (not orthonormal, so a generalised eigenproblem
    Q^T M^T M Q w = lam Q^T Q w replaces a QR): the right singular vectors are Q W, orthonormal,
    s = sqrt(lam), and the left ones M Q W / s. Unlike scikit-learn's randomized_svd, nothing
    of size N x (k + p) is formed or factorised: on the long side there are only sparse products
    (threaded), so a 500,000 x 80,000 tf-idf matrix at rank 500 costs a minute of CPU instead of
    many. The iterations only shape the subspace and run in float32 (half the memory traffic);
    the Rayleigh-Ritz step and the factors are float64. A singular value that is rounding noise
    (s^2 below _GRAM_EIGENVALUE_TOL s_1^2) is set to zero, with a zero left vector. The sparse
    products give the same result with any number of threads.
    """
    U, s, V = _sparse_randomized_factors(X, k, seed, n_iter, n_oversamples)
    return U, s, np.ascontiguousarray(V.T)


def _sparse_randomized_factors(X, k, seed, n_iter=_SPARSE_POWER_ITERATIONS, n_oversamples=_OVERSAMPLES,
                               all_ritz_pairs=False, long_side=True):
    """The factors of :func:`_sparse_randomized_svd` as computed: ``(U, s, V)`` with
    X ~ U diag(s) V^T, both U and V column-major to the matrix they come from (no transposed
    copy), signs not yet fixed.

    ``all_ritz_pairs``: the Rayleigh-Ritz eigenproblem is solved for all its k + p pairs by
    divide and conquer (LAPACK sygvd) and the top k kept, instead of for the top k alone
    (sygvx, bisection and inverse iteration): the same pairs to rounding (eigenvalues within
    1e-15 relative), and 4x faster where k is most of k + p, as it always is here (a
    276 x 276 problem: 33 ms against 9).

    ``long_side=False``: the factor of the long side (M Q W / s, N x k) is not computed and None
    is returned in its place, for a caller that needs the short side's vectors alone.
    """
    transpose = X.shape[1] > X.shape[0]
    M = sp.csr_matrix(X.T if transpose else X, dtype=np.float64)
    N, n = M.shape
    width = min(k + n_oversamples, n)
    threads = _thread_count()
    rng = np.random.default_rng(seed)
    # the number of row groups depends on the shape only, so that results do not depend on threads
    groups = int(max(1, min(_SCATTER_GROUPS, _SCATTER_BUDGET_BYTES // (n * width * 8))))
    # One buffer for the per-group sums of both precisions (touching fresh memory is slow), a
    # slot per thread: the groups run in waves of as many (see _gram_times_dense)
    slots = min(groups, threads)
    buffer = np.empty(slots * n * width, dtype=np.float64)
    partial64 = buffer.reshape(slots, n, width)
    partial32 = buffer.view(np.float32)[:buffer.size].reshape(slots, n, width)
    # The LU of a tall, narrow Q gains nothing from BLAS threads (measured: 20,000 x 266, 1 or
    # 2 threads alike), and OpenBLAS threads left spinning between the sparse products slow the
    # product threads and the LU itself: at 2,300 x 42 an LU took 10 ms instead of 1. So the
    # iterations run with one BLAS thread, and so does all of a small problem (its Rayleigh-Ritz
    # products are a few milliseconds); a large one's Rayleigh-Ritz products use BLAS threads.
    small = n * width * width <= _SMALL_BLAS_FLOPS
    with ThreadPoolExecutor(threads) if threads > 1 else contextlib.nullcontext() as pool, \
            _single_blas_thread() if small else contextlib.nullcontext():
        M32 = M.astype(np.float32)
        Q = rng.standard_normal((n, width), dtype=np.float32)
        with contextlib.nullcontext() if small else _single_blas_thread():
            for _ in range(n_iter):
                Q, _ = scipy.linalg.lu(_gram_times_dense(M32, Q, partial32, pool, groups), permute_l=True,
                                       overwrite_a=True, check_finite=False)
        del M32
        # Rayleigh-Ritz on span(Q), Q not orthonormal: Q^T M^T M Q w = lam Q^T Q w
        Q = np.ascontiguousarray(Q, dtype=np.float64)
        A = Q.T @ _gram_times_dense(M, Q, partial64, pool, groups)
        B = scipy.linalg.blas.dsyrk(1.0, Q.T)                               # Q^T Q, upper triangle
        B = np.triu(B) + np.triu(B, 1).T
        del buffer, partial32, partial64
        if all_ritz_pairs:
            lam, W = scipy.linalg.eigh((A + A.T) / 2.0, B, driver="gvd")
            lam, W = lam[width - k:], W[:, width - k:]
        else:
            lam, W = scipy.linalg.eigh((A + A.T) / 2.0, B, subset_by_index=(width - k, width - 1))
        lam, W = lam[::-1], W[:, ::-1]
        noise = lam <= _GRAM_EIGENVALUE_TOL * max(float(lam[0]), 0.0)
        s = np.where(noise, 0.0, np.sqrt(np.maximum(lam, 0.0)))
        right = Q @ W                                                      # n x k, orthonormal
        del Q
        left = None
        if long_side:
            left = _sparse_times_dense(M, right, np.empty((N, k)), pool)   # M Q W = left * s
            left /= np.where(noise, 1.0, s)[None, :]
            left[:, noise] = 0.0
    if transpose:
        return right, s, left
    return left, s, right

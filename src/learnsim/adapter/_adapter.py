"""The query-side adapter: a linear map of the query embedding alone.

A search over a pre-trained sentence encoder scores ``cos(q, d)`` between the embeddings of a
query and a document. The adapter learns a square matrix ``W`` and scores

    s(q, d) = cos(W q, d),                                                        (1)

so that only queries are mapped: the documents keep the vectors the encoder gave them, and
changing, promoting or rolling back an adapter re-embeds nothing. It is learned from triplets
``(query, relevant, non-relevant)`` (those :func:`learnsim.film.recipe.search_triplets` draws
from judgements, with negatives from the collection) by minimising

    L(W) = mean_t softplus((s(q_t, n_t) - s(q_t, p_t)) / tau) tau
           + alpha / 2 ||W - I||_F^2 / d,                                         (2)

a logistic loss on the difference of the two cosines at temperature ``tau`` (a pairwise form of
the multiple-negatives ranking loss sentence-transformers trains with) and a ridge towards the
identity, the encoder's own cosine, at ``W = I``. L-BFGS from ``W = I``; the gradient of (1) in
``u = W q`` is ``(I - u u^T / |u|^2) d / |u|``.

Chroma's embedding-adapter report [1]_ learns such a map on the query embedding from as few as
1,500 judged pairs; Search-Adaptor [2]_ adapts a fixed encoder's embeddings with a small learned
map.

References
----------
.. [1] A. Troynikov, "Embedding Adapters", Chroma technical report, 2023.
   https://research.trychroma.com/embedding-adapters
.. [2] J. Yoon, Y. Chen, S. Arik and T. Pfister, "Search-Adaptor: Embedding Customization for
   Information Retrieval", ACL 2024.
"""
from __future__ import annotations

import numbers
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from .._utils.params import Interval, validate_params

__all__ = ["QueryAdapter"]

_STATE_VERSION = 1


def _unit(M):
    M = np.asarray(M, dtype=np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", M, M))
    return M / np.where(norms > 0, norms, 1.0)[:, None]


class QueryAdapter(BaseEstimator):
    """A linear map of query embeddings learned from triplets: ``s(q, d) = cos(W q, d)`` (eq. 1).

    Parameters
    ----------
    alpha : float > 0, default=1.0
        The weight of the ridge towards the identity (eq. 2): larger keeps ``W`` nearer the
        encoder's own cosine.
    temperature : float > 0, default=0.05
        ``tau`` of eq. (2).
    rank : int >= 1 or None, default=None
        None: ``W`` is a full d x d matrix; an int r: ``W = I + B C^T`` of rank r at most
        away from the identity (fewer parameters to learn from few judgements; capped at d).
    max_iter : int >= 0, default=200
        L-BFGS iterations (0: ``W = I``).
    tol : float, default=1e-6
        L-BFGS's gradient tolerance.
    random_state : int >= 0 or None, default=0
        Seeds the random start of ``C`` when ``rank`` is given (unused otherwise).

    Attributes
    ----------
    components_ : ndarray (d, d)
        ``W``; queries are mapped as ``X @ components_.T``.
    n_features_in_ : int
    n_triplets_, n_iter_ : int
    converged_ : bool
    loss_ : float
        Eq. (2) at the end.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.adapter import QueryAdapter
    >>> rng = np.random.default_rng(0)
    >>> docs = rng.normal(size=(6, 4))
    >>> queries = docs[[0, 1, 2]] @ np.diag([1.0, -1.0, 1.0, 1.0])   # the second coordinate flipped
    >>> X = np.vstack([docs, queries])
    >>> T = [(6 + i, i, j) for i in range(3) for j in range(6) if j != i]
    >>> adapter = QueryAdapter(alpha=0.01).fit(X, T)
    >>> S = adapter.similarity(X[6:], X[:6])
    >>> S.argmax(axis=1).tolist()                 # each query finds its own document
    [0, 1, 2]
    """

    is_query_adapter = True

    def __init__(self, alpha=1.0, temperature=0.05, rank=None, max_iter=200, tol=1e-6, random_state=0):
        self.alpha = alpha
        self.temperature = temperature
        self.rank = rank
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "temperature": [Interval(Real, 0, None, closed="neither")],
        "rank": [Interval(Integral, 1, None), None],
        "random_state": [Interval(Integral, 0, None), None],
        "max_iter": [Interval(Integral, 0, None)],
        "tol": [Interval(Real, 0, None)],
    }

    # ------------------------------------------------------------------------ fit
    def fit(self, X, triplets):
        """Learn ``W`` from ``triplets`` ``(query, relevant, non-relevant)``, rows of the dense
        embeddings ``X`` (queries and documents in one matrix, as metric-learn takes them)."""
        from scipy.optimize import minimize

        validate_params(self)
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[0] < 2 or not np.isfinite(X).all():
            raise ValueError("X must be a finite 2-D array of embeddings with at least two rows")
        T = np.asarray(triplets, dtype=np.int64).reshape(-1, 3)
        if T.size == 0:
            raise ValueError("no triplet to learn from")
        if T.min() < 0 or T.max() >= X.shape[0]:
            raise ValueError(f"triplets index rows 0..{X.shape[0] - 1} of X")
        d = X.shape[1]
        anchors, row = np.unique(T[:, 0], return_inverse=True)
        A = X[anchors]                                   # the distinct queries
        Dp, Dn = _unit(X[T[:, 1]]), _unit(X[T[:, 2]])
        diff = Dn - Dp
        tau, alpha, n = float(self.temperature), float(self.alpha), len(T)
        eye = np.eye(d)

        def objective(w):
            W = w.reshape(d, d)
            U = A @ W.T
            norms = np.sqrt(np.einsum("ij,ij->i", U, U))
            norms = np.where(norms > 1e-12, norms, 1e-12)
            Uh = U / norms[:, None]
            margin = np.einsum("ij,ij->i", Uh[row], diff) / tau         # (s_n - s_p) / tau
            loss = tau * np.mean(np.logaddexp(0.0, margin))
            coef = 1.0 / (1.0 + np.exp(-margin)) / n                    # d loss / d (s_n - s_p)
            # gradient of (s_n - s_p) in u: (I - uh uh^T)(n - p) / |u|, summed per anchor
            G = np.zeros_like(U)
            np.add.at(G, row, coef[:, None] * diff)
            G = (G - Uh * np.einsum("ij,ij->i", G, Uh)[:, None]) / norms[:, None]
            R = W - eye
            loss += 0.5 * alpha * np.sum(R * R) / d
            grad = G.T @ A + alpha * R / d
            return loss, grad.ravel()

        r = None if self.rank is None else min(int(self.rank), d)
        if self.max_iter == 0:
            W, n_iter, converged = eye.copy(), 0, True
            loss = objective(eye.ravel())[0]
        elif r is not None:
            # W = I + B C^T (rank r): the same loss, its gradient taken through W; the ridge on B
            # and C (a bound on the nuclear norm of W - I)
            rng = np.random.default_rng(self.random_state)
            C0 = np.linalg.qr(rng.normal(size=(d, r)))[0]

            def low_rank(v):
                B, C = v[:d * r].reshape(d, r), v[d * r:].reshape(d, r)
                value, g = objective((eye + B @ C.T).ravel())
                G = g.reshape(d, d) - alpha * (B @ C.T) / d          # the loss's part alone
                value += -0.5 * alpha * np.sum((B @ C.T) ** 2) / d + 0.5 * alpha * (np.sum(B * B) + np.sum(C * C)) / d
                return value, np.concatenate([(G @ C + alpha * B / d).ravel(), (G.T @ B + alpha * C / d).ravel()])

            result = minimize(low_rank, np.concatenate([np.zeros(d * r), C0.ravel()]), jac=True, method="L-BFGS-B",
                              options={"maxiter": int(self.max_iter), "gtol": float(self.tol)})
            B, C = result.x[:d * r].reshape(d, r), result.x[d * r:].reshape(d, r)
            W, n_iter, converged, loss = eye + B @ C.T, int(result.nit), bool(result.success), float(result.fun)
        else:
            result = minimize(objective, eye.ravel(), jac=True, method="L-BFGS-B",
                              options={"maxiter": int(self.max_iter), "gtol": float(self.tol)})
            W, n_iter, converged, loss = result.x.reshape(d, d), int(result.nit), bool(result.success), float(result.fun)
        self.components_ = W
        self.n_features_in_ = d
        self.n_triplets_ = int(n)
        self.n_iter_, self.converged_, self.loss_ = n_iter, converged, float(loss)
        return self

    # ---------------------------------------------------------------------- use
    def _check_fitted(self):
        if not hasattr(self, "components_"):
            # scikit-learn's NotFittedError (a ValueError, as before), which check_is_fitted and
            # the other estimators raise
            raise NotFittedError("this QueryAdapter is not fitted yet; call fit(X, triplets) first")

    def _check_X(self, X):
        self._check_fitted()
        if hasattr(X, "toarray"):
            X = X.toarray()
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise ValueError(f"expected embeddings with {self.n_features_in_} columns; got shape {X.shape}")
        return X

    def transform_queries(self, X):
        """The queries' mapped embeddings ``X W^T`` (eq. 1)."""
        return self._check_X(X) @ self.components_.T

    def transform(self, X):
        """The documents' embeddings, unchanged: the adapter maps queries only."""
        return self._check_X(X)

    def similarity(self, queries, documents):
        """``cos(W q, d)`` of each query with each document (eq. 1)."""
        return _unit(self.transform_queries(queries)) @ _unit(self.transform(documents)).T

    # -------------------------------------------------------------- persistence
    def _get_state(self):
        self._check_fitted()
        meta = {"state_version": _STATE_VERSION,
                "params": {k: (float(v) if k in ("alpha", "temperature", "tol") else None if v is None else int(v))
                           for k, v in self.get_params().items()},
                "n_features_in": int(self.n_features_in_), "n_triplets": int(self.n_triplets_),
                "n_iter": int(self.n_iter_), "converged": bool(self.converged_), "loss": float(self.loss_)}
        return meta, {"components": np.asarray(self.components_, dtype=np.float64)}

    @classmethod
    def _from_state(cls, meta, arrays):
        from .._utils.validation import check_state_header

        check_state_header(cls.__name__, meta, arrays, _STATE_VERSION, ("params", "n_features_in"))
        if set(arrays) != {"components"}:
            raise ValueError(f"QueryAdapter state must hold exactly the array 'components'; got {sorted(arrays)}")
        params = meta["params"]
        if not isinstance(params, dict) or set(params) != set(cls().get_params()):
            raise ValueError(f"QueryAdapter state: 'params' must give exactly {sorted(cls().get_params())}")
        d = meta["n_features_in"]
        W = np.asarray(arrays["components"])
        if isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 1 or W.shape != (d, d) \
                or W.dtype.kind != "f" or not np.isfinite(W).all():
            raise ValueError(f"QueryAdapter state: components must be a finite ({d}, {d}) float array; "
                             f"got {W.dtype} {W.shape}")
        obj = cls(**params)
        validate_params(obj)
        obj.components_ = W.astype(np.float64)
        obj.n_features_in_ = int(d)
        obj.n_triplets_ = int(meta.get("n_triplets", 0))
        obj.n_iter_, obj.converged_ = int(meta.get("n_iter", 0)), bool(meta.get("converged", True))
        obj.loss_ = float(meta.get("loss", float("nan")))
        return obj

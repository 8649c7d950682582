"""A learned similarity mixed with the cosine of its own input: s = w cos(x, x') + (1 - w) cos(Lx, Lx').

Why: a low-rank metric such as FILM (d of tens to hundreds of dimensions) keeps the directions
that separate its training triplets and drops the rest of the input space - including the exact
word overlap that makes the input's cosine a strong duplicate and similarity signal on its own.
Mixing the two keeps both: the input cosine for what is literally shared, the learned cosine for
what the supervision taught (synonyms, which words matter). In metric terms, for unit-length rows,
it is the inner product of the concatenated embedding [sqrt(w) x/|x|, sqrt(1-w) Lx/|Lx|], i.e. a
learned low-rank metric plus a multiple of the identity - the usual regularisation towards the
Euclidean metric of metric learning. w = 0 is the learned metric alone (the paper's), w = 1 the
input cosine; w is chosen on validation pairs (:class:`learnsim.matching.ThresholdMatcher` with
``input_weight="auto"``, or :func:`select_input_weight`).

Measured (``learnsim reproduce film``): on the Quora sample the mix beats both of its parts, and
mixing the input cosine with an unsupervised LSI embedding of the same size gains less, so the
supervision, not the smoothing alone, makes the difference (the report gives the figures).
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..persistence import transformer_from_state as _transformer_from_state, transformer_state as _transformer_state
from .._utils.params import Checked, validate_params
from .._utils.validation import check_matrix, state_number

__all__ = ["HybridEmbedding", "hybrid_rows", "select_input_weight", "DEFAULT_WEIGHT_GRID"]

#: The input weights tried by ``input_weight="auto"``: 0, 0.05, ..., 1.
DEFAULT_WEIGHT_GRID = tuple(np.round(np.linspace(0.0, 1.0, 21), 2))


def check_input_weight(value, name="input_weight", allow_auto=False):
    """A weight in [0, 1] (or "auto" where allowed) as a float or the string."""
    if allow_auto and isinstance(value, str) and value == "auto":
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) \
            or not np.isfinite(value) or not 0.0 <= value <= 1.0:
        extra = ", 'auto'" if allow_auto else ""
        raise ValueError(f"{name} must be a number in [0, 1]{extra}; got {value!r}")
    return float(value)


def _check_transformer(transformer):
    if not callable(getattr(transformer, "transform", None)):
        raise TypeError("transformer must be a fitted object with a transform(X) method; got "
                        f"{type(transformer).__name__}")


def _unit(M):
    """Rows scaled to unit length; all-zero rows stay zero."""
    if sp.issparse(M):
        M = sp.csr_matrix(M, dtype=np.float64, copy=True)
        norms = np.sqrt(np.asarray(M.multiply(M).sum(axis=1)).ravel())
        M.data /= np.repeat(np.where(norms > 0, norms, 1.0), np.diff(M.indptr))
        return M
    M = np.asarray(M, dtype=np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", M, M))
    return M / np.where(norms > 0, norms, 1.0)[:, None]


def hybrid_rows(X, E, input_weight):
    """[sqrt(w) X/|X|, sqrt(1 - w) E/|E|] row by row: inner products are w cos_X + (1 - w) cos_E.

    Sparse when ``X`` is sparse (the learned part adds ``E.shape[1]`` stored values per row).

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.film.hybrid import hybrid_rows
    >>> X = np.array([[3.0, 4.0], [1.0, 0.0]])
    >>> E = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]])
    >>> H = hybrid_rows(X, E, 0.25)
    >>> H.shape
    (2, 5)
    >>> round(float(H[0] @ H[1]), 2)    # 0.25 * cos_X (0.6) + 0.75 * cos_E (0)
    0.15
    """
    w = check_input_weight(input_weight)
    if X.shape[0] != E.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but its embedding has {E.shape[0]}")
    left, right = np.sqrt(w) * _unit(X), np.sqrt(1.0 - w) * _unit(E)
    if sp.issparse(left) or sp.issparse(right):
        return sp.hstack([sp.csr_matrix(left), sp.csr_matrix(right)], format="csr")
    return np.hstack([left, right])


def select_input_weight(input_scores, learned_scores, criterion, grid=DEFAULT_WEIGHT_GRID):
    """The weight w of ``grid`` that maximises ``criterion(w * input + (1 - w) * learned)``.

    ``criterion`` maps a score vector to a number to maximise (validation accuracy at the best
    threshold, a correlation with gold scores, ...). Ties go to the smallest w (the most learned).
    Returns ``(w, values)`` with the criterion's value for every grid point.

    Examples
    --------
    Scores of four validation pairs under the input cosine and a learned cosine; the criterion
    is the accuracy of "duplicate when the score reaches 0.5":

    >>> import numpy as np
    >>> from learnsim.film.hybrid import select_input_weight
    >>> y = np.array([1, 1, 0, 0])
    >>> input_scores = np.array([0.9, 0.4, 0.6, 0.1])
    >>> learned_scores = np.array([0.6, 0.8, 0.3, 0.5])
    >>> accuracy = lambda s: float(np.mean((s >= 0.5) == y))
    >>> w, values = select_input_weight(input_scores, learned_scores, accuracy, grid=(0.0, 0.5, 1.0))
    >>> w, values.tolist()
    (0.5, [0.75, 1.0, 0.5])
    """
    a = np.asarray(input_scores, dtype=np.float64)
    b = np.asarray(learned_scores, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"input_scores and learned_scores must be 1-D and of equal length; got shapes "
                         f"{a.shape} and {b.shape}")
    weights = [check_input_weight(w, "every weight of grid") for w in grid]
    if not weights:
        raise ValueError("grid is empty; give at least one weight in [0, 1]")
    values = np.array([float(criterion(w * a + (1.0 - w) * b)) for w in weights])
    if not np.isfinite(values).any():
        raise ValueError("the criterion is not finite for any weight of the grid")
    best = int(np.nanargmax(values))
    return weights[best], values


class HybridEmbedding(TransformerMixin, BaseEstimator):
    """Concatenate the unit-length input with a fitted transformer's unit-length embedding.

    ``transform(X) @ transform(X').T`` is ``w cos(x, x') + (1 - w) cos(T(x), T(x'))`` for rows
    that are not all zero (module notes): any search or matching code that uses the inner
    product (or the cosine, which then agrees) uses the mixed similarity.

    Parameters
    ----------
    transformer : fitted object with ``transform(X)``
        E.g. a fitted :class:`~learnsim.film.FILM` or
        :class:`~learnsim.mcd.MinimumClusterDistortion`. It is not refitted.
    input_weight : float in [0, 1], default=0.5
        w. 0: the transformer's cosine alone; 1: the input's cosine alone.

    Attributes
    ----------
    n_features_in_ : int

    Examples
    --------
    Any fitted transformer will do; here a fixed linear map:

    >>> import numpy as np
    >>> from sklearn.preprocessing import FunctionTransformer
    >>> from learnsim.film.hybrid import HybridEmbedding
    >>> X = np.array([[1.0, 0.0, 1.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0]])
    >>> T = FunctionTransformer(lambda Z: Z @ np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])).fit(X)
    >>> H = HybridEmbedding(T, input_weight=0.5).fit(X).transform(X)
    >>> H.shape
    (3, 5)
    >>> np.round(H @ H.T, 2).diagonal().tolist()    # every row has unit length
    [1.0, 1.0, 1.0]
    """

    _parameter_constraints = {
        "transformer": [Checked(_check_transformer)],
        "input_weight": [Checked(check_input_weight)],     # shared with the matchers (and 'auto' there)
    }

    def __init__(self, transformer=None, input_weight=0.5):
        self.transformer = transformer
        self.input_weight = input_weight

    def fit(self, X=None, y=None):
        """Check the parameters (the transformer must already be fitted); nothing is learned."""
        validate_params(self)
        check_is_fitted(self.transformer)
        n_in = getattr(self.transformer, "n_features_in_", None)
        if X is not None:
            X = check_matrix(X, name="X")
            if n_in is not None and X.shape[1] != n_in:
                raise ValueError(f"X has {X.shape[1]} features, but the transformer expects {n_in}")
            n_in = X.shape[1]
        self.n_features_in_ = n_in
        self.fitted_ = True
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True            # a sparse X gives sparse rows
        return tags

    def transform(self, X):
        """Rows [sqrt(w) x/|x|, sqrt(1 - w) T(x)/|T(x)|] (sparse when X is sparse)."""
        check_is_fitted(self)
        X = check_matrix(X, name="X")
        E = check_matrix(self.transformer.transform(X), name="the transformer's embedding of X")
        return hybrid_rows(X, E, self.input_weight)

    # persistence protocol (learnsim.persistence): the transformer is nested, as in the matchers,
    # and its state is checked by its own class (persistence._restore)
    _STATE_NESTED = ("transformer",)

    def _get_state(self):
        check_is_fitted(self)
        t_meta, arrays = _transformer_state(self.transformer)
        return ({"input_weight": float(self.input_weight), "transformer": t_meta,
                 "n_features_in": None if self.n_features_in_ is None else int(self.n_features_in_)}, arrays)

    @classmethod
    def _from_state(cls, meta, arrays):
        for key in ("input_weight", "transformer", "n_features_in"):
            if key not in meta:
                raise ValueError(f"HybridEmbedding state lacks the metadata entry {key!r}")
        if meta["transformer"] is None:
            raise ValueError("HybridEmbedding state has no transformer")
        obj = cls(_transformer_from_state(meta["transformer"], arrays),
                  check_input_weight(meta["input_weight"], "HybridEmbedding state: input_weight"))
        obj.n_features_in_ = state_number(meta, "n_features_in", "HybridEmbedding", integer=True, low=1,
                                          allow_none=True)
        inner = getattr(obj.transformer, "n_features_in_", None)
        if obj.n_features_in_ is not None and inner is not None and inner != obj.n_features_in_:
            raise ValueError(f"HybridEmbedding state: n_features_in is {obj.n_features_in_}, but its "
                             f"transformer expects {inner} features")
        obj.fitted_ = True
        return obj

"""What a learned linear metric looks at: the words behind each learned dimension (FILM paper,
Figure 5) and the words that drove the similarity of one pair.

Every metric here embeds an item as y = L x, so that M = L^T L and the similarity of two items
in the learned space is the inner product

    s(a, b) = (L x_a) . (L x_b) = x_a^T M x_b = sum_l y_a,l y_b,l

(FILM ranks by the cosine, s / (|L x_a| |L x_b|)). Both sums can be split exactly:

* over the learned dimensions: dimension l adds y_a,l y_b,l;
* over word pairs: the pair (i, j) adds x_a[i] x_b[j] M[i, j], with M[i, j] = L[:, i] . L[:, j];
  only words present in both texts matter, so this needs the columns of L at those words and
  never a D x D matrix. Summed over the words j of b it gives what word i of a adds, and vice
  versa.

The contributions to the cosine are the same numbers divided by |L x_a| |L x_b|.

The metric is read in a factored form, M = R^T R + beta I + G^T diag(c) G:

* a model with ``components_`` (FILM and any metric-learn-like learner): R = L;
* :class:`~learnsim.mcd.MinimumClusterDistortion`: R = diag(sqrt(w)) V^T over its eigen-directions
  V (row l of ``components_`` when nothing is kept outside span(V)), and the weight beta =
  ``residual_weight_`` of every direction outside span(V) as beta (I - V V^T). Reading the factors
  avoids ``components_``, which is D x D in that case.

A ``projection`` P (k x D) - the LSI basis of a :class:`~learnsim.text.TextVectorizer` - maps
words to the model's k inputs; the explanation is then over the words: M_words = P^T M P.

References
----------
.. [1] X. Tang and A. Aw, "FILM: A Fast, Interpretable, and Low-rank Metric Learning Approach
   for Sentence Matching", arXiv preprint, 2020 (paper 001 in ../shared/papers).
"""
from __future__ import annotations

import numbers
from dataclasses import asdict, dataclass, field

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_matrix

__all__ = ["FeatureWeight", "DimensionFeatures", "WordContribution", "WordPairContribution",
           "DimensionContribution", "PairExplanation", "n_learned_dimensions", "top_features",
           "explain_pair", "plot_dimension_weights"]

# Entries of one block of the word-pair contribution matrix (rows of words of a x words of b).
_BLOCK_ENTRIES = 2 ** 22
# With n_top=None every word pair is listed; above this many that is refused.
_MAX_LISTED_PAIRS = 1_000_000


# --------------------------------------------------------------------------- results

@dataclass(frozen=True)
class FeatureWeight:
    """One feature (word) of a learned dimension and its weight L[l, index].

    Examples
    --------
    A fitted linear metric with two learned dimensions over four words (any object with
    ``components_`` will do: FILM, MinimumClusterDistortion, ...):

    >>> import numpy as np
    >>> from learnsim.evaluation.explain import explain_pair, top_features
    >>> class Model:
    ...     components_ = np.array([[1.0, 0.5, 0.0, 0.0], [0.0, 0.0, 2.0, -1.0]])
    >>> names = ["cheap", "flights", "paris", "rome"]
    >>> a = np.array([1.0, 1.0, 1.0, 0.0])      # "cheap flights paris"
    >>> b = np.array([1.0, 0.0, 1.0, 0.0])      # "cheap paris"
    >>> top_features(Model(), names, n_top=1)[1].positive
    [FeatureWeight(feature='paris', index=2, weight=2.0)]
    """

    feature: str
    index: int
    weight: float


@dataclass(frozen=True)
class DimensionFeatures:
    """The features with the largest weights in one learned dimension (one row of L).

    Attributes
    ----------
    dimension : int
        l, the row of L.
    scale : float or None
        The model's own weight of the dimension: FILM's ``scales_[l]`` (diag S),
        MinimumClusterDistortion's ``weights_[l]`` (the metric on eigen-direction l); None
        for other models.
    norm : float
        Euclidean norm of the row L[l, :].
    positive : list of FeatureWeight
        The features with the largest positive weights, largest first.
    negative : list of FeatureWeight
        The features with the most negative weights, most negative first.

    The sign of a dimension is arbitrary (l and -l give the same metric): what matters is which
    words share a sign and which oppose them.

    Examples
    --------
    A fitted linear metric with two learned dimensions over four words (any object with
    ``components_`` will do: FILM, MinimumClusterDistortion, ...):

    >>> import numpy as np
    >>> from learnsim.evaluation.explain import explain_pair, top_features
    >>> class Model:
    ...     components_ = np.array([[1.0, 0.5, 0.0, 0.0], [0.0, 0.0, 2.0, -1.0]])
    >>> names = ["cheap", "flights", "paris", "rome"]
    >>> a = np.array([1.0, 1.0, 1.0, 0.0])      # "cheap flights paris"
    >>> b = np.array([1.0, 0.0, 1.0, 0.0])      # "cheap paris"
    >>> dim = top_features(Model(), names, n_top=1)[1]
    >>> dim.dimension, [w.feature for w in dim.positive], [w.feature for w in dim.negative]
    (1, ['paris'], ['rome'])
    """

    dimension: int
    scale: float | None
    norm: float
    positive: list = field(default_factory=list)
    negative: list = field(default_factory=list)

    def to_dict(self):
        """Plain dicts and lists, ready for ``json.dumps``."""
        return asdict(self)


@dataclass(frozen=True)
class WordContribution:
    """What one word of a text adds to the pair's similarity.

    ``value`` is the word's entry in the text's vector; ``contribution`` is its share of the
    inner product (x[i] (M x_other)[i]); ``cosine_contribution`` its share of the cosine.

    Examples
    --------
    A fitted linear metric with two learned dimensions over four words (any object with
    ``components_`` will do: FILM, MinimumClusterDistortion, ...):

    >>> import numpy as np
    >>> from learnsim.evaluation.explain import explain_pair, top_features
    >>> class Model:
    ...     components_ = np.array([[1.0, 0.5, 0.0, 0.0], [0.0, 0.0, 2.0, -1.0]])
    >>> names = ["cheap", "flights", "paris", "rome"]
    >>> a = np.array([1.0, 1.0, 1.0, 0.0])      # "cheap flights paris"
    >>> b = np.array([1.0, 0.0, 1.0, 0.0])      # "cheap paris"
    >>> [(w.feature, w.contribution) for w in explain_pair(Model(), a, b, names).words_a]
    [('paris', 4.0), ('cheap', 1.0), ('flights', 0.5)]
    """

    feature: str
    index: int
    value: float
    contribution: float
    cosine_contribution: float


@dataclass(frozen=True)
class WordPairContribution:
    """What the word pair (word ``index_a`` of a, word ``index_b`` of b) adds:
    x_a[i] x_b[j] M[i, j], and its share of the cosine.

    Examples
    --------
    A fitted linear metric with two learned dimensions over four words (any object with
    ``components_`` will do: FILM, MinimumClusterDistortion, ...):

    >>> import numpy as np
    >>> from learnsim.evaluation.explain import explain_pair, top_features
    >>> class Model:
    ...     components_ = np.array([[1.0, 0.5, 0.0, 0.0], [0.0, 0.0, 2.0, -1.0]])
    >>> names = ["cheap", "flights", "paris", "rome"]
    >>> a = np.array([1.0, 1.0, 1.0, 0.0])      # "cheap flights paris"
    >>> b = np.array([1.0, 0.0, 1.0, 0.0])      # "cheap paris"
    >>> top = explain_pair(Model(), a, b, names).word_pairs[0]
    >>> top.feature_a, top.feature_b, top.contribution
    ('paris', 'paris', 4.0)
    """

    feature_a: str
    index_a: int
    feature_b: str
    index_b: int
    contribution: float
    cosine_contribution: float


@dataclass(frozen=True)
class DimensionContribution:
    """What learned dimension l adds: y_a,l y_b,l, and its share of the cosine.

    Examples
    --------
    A fitted linear metric with two learned dimensions over four words (any object with
    ``components_`` will do: FILM, MinimumClusterDistortion, ...):

    >>> import numpy as np
    >>> from learnsim.evaluation.explain import explain_pair, top_features
    >>> class Model:
    ...     components_ = np.array([[1.0, 0.5, 0.0, 0.0], [0.0, 0.0, 2.0, -1.0]])
    >>> names = ["cheap", "flights", "paris", "rome"]
    >>> a = np.array([1.0, 1.0, 1.0, 0.0])      # "cheap flights paris"
    >>> b = np.array([1.0, 0.0, 1.0, 0.0])      # "cheap paris"
    >>> [(d.dimension, d.contribution) for d in explain_pair(Model(), a, b, names).dimensions]
    [(1, 4.0), (0, 1.5)]
    """

    dimension: int
    contribution: float
    cosine_contribution: float


@dataclass(frozen=True)
class PairExplanation:
    """Why two items are (dis)similar under a learned metric.

    Attributes
    ----------
    inner_product : float
        x_a^T M x_b = (L x_a) . (L x_b), the similarity every contribution below adds up to.
    norm_a, norm_b : float
        |L x_a| and |L x_b|.
    cosine : float
        inner_product / (norm_a norm_b), the cosine in the learned space (FILM's similarity);
        0 when an item's embedding is zero.
    distance : float
        |L (x_a - x_b)|, the learned distance.
    words_a, words_b : list of WordContribution
        Per word of a (of b): its share, summed over the words of the other text. Sorted by
        contribution, largest first; with ``n_top`` the ``n_top`` largest positive and the
        ``n_top`` most negative ones.
    word_pairs : list of WordPairContribution
        Per pair of words (i of a, j of b), sorted and cut like ``words_a``.
    dimensions : list of DimensionContribution
        Per learned dimension, sorted and cut like ``words_a``.
    residual_contribution : float
        What the directions outside the learned dimensions add (MinimumClusterDistortion's
        ``residual_weight_``); 0 for FILM. The dimension contributions plus this equal the
        inner product.
    n_words_a, n_words_b : int
        Non-zero entries of x_a and x_b (so n_words_a * n_words_b word pairs).
    omitted_words_a, omitted_words_b, omitted_word_pairs, omitted_dimensions : float
        The summed contribution of the entries left out of each list: listed + omitted =
        inner_product (plus ``residual_contribution`` for the dimensions).

    Examples
    --------
    A fitted linear metric with two learned dimensions over four words (any object with
    ``components_`` will do: FILM, MinimumClusterDistortion, ...):

    >>> import numpy as np
    >>> from learnsim.evaluation.explain import explain_pair, top_features
    >>> class Model:
    ...     components_ = np.array([[1.0, 0.5, 0.0, 0.0], [0.0, 0.0, 2.0, -1.0]])
    >>> names = ["cheap", "flights", "paris", "rome"]
    >>> a = np.array([1.0, 1.0, 1.0, 0.0])      # "cheap flights paris"
    >>> b = np.array([1.0, 0.0, 1.0, 0.0])      # "cheap paris"
    >>> e = explain_pair(Model(), a, b, names)
    >>> e.inner_product, e.n_words_a, e.n_words_b
    (5.5, 3, 2)
    >>> sorted(e.to_dict())[:4]
    ['cosine', 'dimensions', 'distance', 'inner_product']
    """

    inner_product: float
    norm_a: float
    norm_b: float
    cosine: float
    distance: float
    words_a: list
    words_b: list
    word_pairs: list
    dimensions: list
    residual_contribution: float
    n_words_a: int
    n_words_b: int
    omitted_words_a: float
    omitted_words_b: float
    omitted_word_pairs: float
    omitted_dimensions: float

    def to_dict(self):
        """Plain dicts and lists, ready for ``json.dumps``."""
        return asdict(self)


# --------------------------------------------------------------------------- the factored metric

class _LinearForm:
    """M = R^T R + beta I + G^T diag(c) G over ``n_features`` features.

    R (n_dims x n_cols) holds the learned dimensions and G (n_extra x n_cols) the correction
    outside them, both over the features ``columns`` (None: all of them); the other features
    have zero columns in R and G.
    """

    def __init__(self, R, beta, G, c, columns, n_features, scales):
        self.R, self.beta, self.G, self.c = R, float(beta), G, c
        self.columns, self.n_features, self.scales = columns, int(n_features), scales
        self.n_dims = R.shape[0]
        if columns is not None:
            self._order = np.argsort(columns, kind="stable")
            self._sorted = columns[self._order]

    def _positions(self, features):
        """Column of R/G of each feature, and a mask of the features that have one."""
        if self.columns is None:
            return features, np.ones(features.size, dtype=bool)
        at = np.searchsorted(self._sorted, features)
        at_clipped = np.minimum(at, max(self._sorted.size - 1, 0))
        found = (at < self._sorted.size) & (self._sorted[at_clipped] == features) if self._sorted.size \
            else np.zeros(features.size, dtype=bool)
        return self._order[at_clipped], found

    def factor_columns(self, features):
        """(R[:, features], G[:, features]) with zero columns for features outside ``columns``."""
        pos, found = self._positions(features)
        R = np.zeros((self.R.shape[0], features.size))
        G = np.zeros((self.G.shape[0], features.size))
        R[:, found] = self.R[:, pos[found]]
        G[:, found] = self.G[:, pos[found]]
        return R, G

    def dimension_row(self, dim):
        """L[dim, :] over every feature."""
        if self.columns is None:
            return np.asarray(self.R[dim], dtype=np.float64)
        row = np.zeros(self.n_features)
        row[self.columns] = self.R[dim]
        return row


def _as_dense_float(A, name):
    A = A.toarray() if sp.issparse(A) else np.asarray(A)
    if A.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be a numeric matrix; got dtype {A.dtype}")
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix; got shape {A.shape}")
    if not np.isfinite(A).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return A


def _linear_form(model, projection=None):
    """The factored metric of a fitted model (see the module docstring)."""
    if hasattr(model, "fit"):
        # imported here: an index explains its hits from its query plan's arrays, without the
        # estimators, and scikit-learn's import would be most of `learnsim search --explain`
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(model)
    name = type(model).__name__
    if all(hasattr(model, a) for a in ("factor_", "weights_", "residual_weight_", "active_features_")):
        # MinimumClusterDistortion: M = V diag(w) V^T + beta (I - V V^T) over the active features
        V = np.asarray(model.factor_, dtype=np.float64)
        w = np.asarray(model.weights_, dtype=np.float64)
        beta = float(model.residual_weight_)
        columns = np.asarray(model.active_features_, dtype=np.int64)
        n_features = int(model.n_features_in_)
        R = np.sqrt(w)[:, None] * V.T
        if beta > 0.0:
            G, c = np.ascontiguousarray(V.T), np.full(V.shape[1], -beta)
        else:
            G, c = np.zeros((0, columns.size)), np.zeros(0)
        form = _LinearForm(R, beta, G, c, columns, n_features, w)
    else:
        if not hasattr(model, "components_"):
            raise TypeError(f"{name} is not a linear metric: it has no components_ (the map L, "
                            "n_components x n_features)")
        L = _as_dense_float(model.components_, f"{name}.components_")
        n_features = getattr(model, "n_features_in_", L.shape[1])
        if L.shape[1] != n_features:
            raise ValueError(f"{name}.components_ has {L.shape[1]} columns but the model takes "
                             f"{n_features} input features")
        scales = getattr(model, "scales_", None)
        if scales is not None:
            scales = np.asarray(scales, dtype=np.float64).ravel()
            if scales.shape != (L.shape[0],):
                scales = None
        form = _LinearForm(L, 0.0, np.zeros((0, L.shape[1])), np.zeros(0), None, L.shape[1], scales)
    if projection is None:
        return form
    return _compose(form, projection)


def _compose(form, projection):
    """The form of M_words = P^T M P, for inputs z = P x (x over the words)."""
    P = _as_dense_float(projection, "projection")
    if P.shape[0] != form.n_features:
        raise ValueError(f"projection has {P.shape[0]} rows but the model takes {form.n_features} "
                         "input features: it must map the words to the model's inputs (k x n_words)")
    Pc = P if form.columns is None else P[form.columns]
    R = form.R @ Pc
    G, c = form.G @ Pc, form.c
    if form.beta > 0.0:
        # beta I in the model's input space is beta P^T P over the words
        G, c = np.vstack([G, P]), np.concatenate([c, np.full(P.shape[0], form.beta)])
    return _LinearForm(R, 0.0, G, c, None, P.shape[1], form.scales)


# --------------------------------------------------------------------------- argument checks

def _check_names(feature_names, n_features):
    if isinstance(feature_names, (str, bytes)) or feature_names is None:
        raise TypeError("feature_names must be a sequence of names, one per input feature; got "
                        f"{type(feature_names).__name__}")
    names = [str(n) for n in feature_names]
    if len(names) != n_features:
        raise ValueError(f"feature_names has {len(names)} names but the model has {n_features} input "
                         "features (with a projection: one name per column of the projection)")
    return names


def _check_n_top(n_top, allow_none=False):
    if n_top is None and allow_none:
        return None
    if isinstance(n_top, (bool, np.bool_)) or not isinstance(n_top, numbers.Integral) or n_top < 1:
        raise ValueError(f"n_top must be a positive integer{' or None' if allow_none else ''}; got {n_top!r}")
    return int(n_top)


def _check_dimensions(dimensions, n_dims):
    if dimensions is None:
        return list(range(n_dims))
    if isinstance(dimensions, numbers.Integral) and not isinstance(dimensions, (bool, np.bool_)):
        dimensions = [dimensions]
    out = []
    for dim in dimensions:
        if isinstance(dim, (bool, np.bool_)) or not isinstance(dim, numbers.Integral):
            raise ValueError(f"dimensions must be integers; got {dim!r}")
        if not 0 <= dim < n_dims:
            valid = f"0-{n_dims - 1}" if n_dims else "none"
            raise ValueError(f"dimension {int(dim)} is out of range: the model has {n_dims} learned "
                             f"dimension(s) ({valid})")
        out.append(int(dim))
    return out


def _check_vector(x, name, n_features):
    """(indices, values) of the non-zero entries of one vector, indices increasing."""
    if not sp.issparse(x) and x is not None and np.ndim(x) == 1:
        x = np.asarray(x).reshape(1, -1)
    X = check_matrix(x, name=name, accept_sparse=True, dtype=np.float64)
    if X.shape[0] != 1:
        raise ValueError(f"{name} must be one vector (n_features,) or (1, n_features); got shape {X.shape}")
    if X.shape[1] != n_features:
        raise ValueError(f"{name} has {X.shape[1]} features, but the model (with its projection, if any) "
                         f"takes {n_features}")
    if sp.issparse(X):
        X = X.tocsr()
        X.sum_duplicates()
        X.sort_indices()
        keep = X.data != 0
        return X.indices[keep].astype(np.int64), X.data[keep].astype(np.float64)
    idx = np.flatnonzero(X[0])
    return idx.astype(np.int64), X[0, idx].astype(np.float64)


# --------------------------------------------------------------------------- top features

def n_learned_dimensions(model):
    """Number of learned dimensions (rows of L) of a fitted linear metric: FILM's
    ``n_components``, MinimumClusterDistortion's number of eigen-directions.

    Examples
    --------
    A fitted linear metric with two learned dimensions over four words (any object with
    ``components_`` will do: FILM, MinimumClusterDistortion, ...):

    >>> import numpy as np
    >>> from learnsim.evaluation.explain import explain_pair, top_features
    >>> class Model:
    ...     components_ = np.array([[1.0, 0.5, 0.0, 0.0], [0.0, 0.0, 2.0, -1.0]])
    >>> names = ["cheap", "flights", "paris", "rome"]
    >>> a = np.array([1.0, 1.0, 1.0, 0.0])      # "cheap flights paris"
    >>> b = np.array([1.0, 0.0, 1.0, 0.0])      # "cheap paris"
    >>> from learnsim.evaluation.explain import n_learned_dimensions
    >>> n_learned_dimensions(Model())
    2
    """
    return _linear_form(model).n_dims


def _order_desc(values, ids):
    """Positions sorting values descending, ties by id (a stable, reproducible order)."""
    return np.lexsort((ids, -values))


def top_features(model, feature_names, n_top=10, dimensions=None, *, projection=None):
    """The features with the largest weights in each learned dimension (FILM paper, Figure 5).

    Parameters
    ----------
    model : fitted linear metric
        FILM, MinimumClusterDistortion or any fitted estimator with ``components_`` L
        (n_components x n_features), y = L x.
    feature_names : sequence of str
        One name per input feature (per column of ``projection`` when given), e.g.
        ``TextVectorizer.get_feature_names_out()``.
    n_top : int, default=10
        Features listed per sign and dimension.
    dimensions : int, sequence of int or None
        The learned dimensions (rows of L) to describe; None: all, in order.
    projection : array (n_features_in, n_words), optional
        A linear map from the words to the model's inputs (LSI: ``TextVectorizer.components_``),
        to describe the dimensions over words: row l of L P.

    Returns
    -------
    list of DimensionFeatures
        One per requested dimension, in the order asked.

    References
    ----------
    .. [1] X. Tang and A. Aw, "FILM: A Fast, Interpretable, and Low-rank Metric Learning Approach
       for Sentence Matching", arXiv preprint, 2020 (paper 001 in ../shared/papers).

    Examples
    --------
    A fitted linear metric with two learned dimensions over four words (any object with
    ``components_`` will do: FILM, MinimumClusterDistortion, ...):

    >>> import numpy as np
    >>> from learnsim.evaluation.explain import explain_pair, top_features
    >>> class Model:
    ...     components_ = np.array([[1.0, 0.5, 0.0, 0.0], [0.0, 0.0, 2.0, -1.0]])
    >>> names = ["cheap", "flights", "paris", "rome"]
    >>> a = np.array([1.0, 1.0, 1.0, 0.0])      # "cheap flights paris"
    >>> b = np.array([1.0, 0.0, 1.0, 0.0])      # "cheap paris"
    >>> dims = top_features(Model(), names, n_top=2)
    >>> [(d.dimension, [w.feature for w in d.positive]) for d in dims]
    [(0, ['cheap', 'flights']), (1, ['paris'])]
    """
    form = _linear_form(model, projection)
    names = _check_names(feature_names, form.n_features)
    n_top = _check_n_top(n_top)
    dims = _check_dimensions(dimensions, form.n_dims)
    out = []
    for dim in dims:
        row = form.dimension_row(dim)
        pos = np.flatnonzero(row > 0)
        pos = pos[_order_desc(row[pos], pos)][:n_top]
        neg = np.flatnonzero(row < 0)
        neg = neg[_order_desc(-row[neg], neg)][:n_top]
        scale = None if form.scales is None else float(form.scales[dim])
        out.append(DimensionFeatures(
            dimension=dim, scale=scale, norm=float(np.linalg.norm(row)),
            positive=[FeatureWeight(names[i], int(i), float(row[i])) for i in pos],
            negative=[FeatureWeight(names[i], int(i), float(row[i])) for i in neg]))
    return out


# --------------------------------------------------------------------------- one pair

def _select(values, n_top, keys=None):
    """Positions of the n_top largest positive and the n_top most negative values (all of them
    when n_top is None), sorted by value descending, ties by ``keys`` (default: position)."""
    keys = np.arange(values.size) if keys is None else keys
    chosen = np.arange(values.size)
    if n_top is not None:
        pos, neg = chosen[values > 0], chosen[values < 0]
        pos = pos[_order_desc(values[pos], keys[pos])][:n_top]
        neg = neg[_order_desc(-values[neg], keys[neg])][:n_top]
        chosen = np.concatenate([pos, neg])
    return chosen[_order_desc(values[chosen], keys[chosen])]


def _quadratic(form, ia, va, ib, vb):
    """x_a^T M x_b for sparse vectors given as (indices, values)."""
    Ra, Ga = form.factor_columns(ia)
    Rb, Gb = form.factor_columns(ib)
    value = float((Ra @ va) @ (Rb @ vb)) + float(np.dot(form.c * (Ga @ va), Gb @ vb))
    if form.beta:
        _, at_a, at_b = np.intersect1d(ia, ib, assume_unique=True, return_indices=True)
        value += form.beta * float(np.dot(va[at_a], vb[at_b]))
    return value


def _word_pair_candidates(form, ia, va, ib, vb, n_top):
    """The selected word pairs as (rows into ia, rows into ib, contributions), and the total."""
    Ra, Ga = form.factor_columns(ia)
    Rb, Gb = form.factor_columns(ib)
    # contribution of (i, j) = x_a[i] x_b[j] (R_i . R_j + beta [i == j] + sum_k c_k G_ki G_kj)
    A = np.vstack([Ra, form.c[:, None] * Ga]) * va[None, :]
    B = np.vstack([Rb, Gb]) * vb[None, :]
    where_in_b = {int(j): q for q, j in enumerate(ib)} if form.beta else {}
    step = max(1, _BLOCK_ENTRIES // max(ib.size, 1))
    keep_rows, keep_cols, keep_vals = [], [], []
    total = 0.0
    for start in range(0, ia.size, step):
        block = A[:, start:start + step].T @ B
        if form.beta:
            for p in range(block.shape[0]):
                q = where_in_b.get(int(ia[start + p]))
                if q is not None:
                    block[p, q] += form.beta * va[start + p] * vb[q]
        total += float(block.sum())
        flat = block.ravel()
        chosen = _select(flat, n_top)
        keep_rows.append(start + chosen // ib.size)
        keep_cols.append(chosen % ib.size)
        keep_vals.append(flat[chosen])
    if not keep_rows:                     # a has no non-zero word
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0), 0.0
    rows = np.concatenate(keep_rows).astype(np.int64)
    cols = np.concatenate(keep_cols).astype(np.int64)
    vals = np.concatenate(keep_vals)
    # the winners of every block ranked together, ties by (word of a, word of b)
    final = _select(vals, n_top, keys=rows * ib.size + cols)
    return rows[final], cols[final], vals[final], total


def explain_pair(model, x_a, x_b, feature_names, n_top=10, *, projection=None):
    """Which words (and word pairs, and learned dimensions) drove the similarity of two items.

    The inner product in the learned space, (L x_a) . (L x_b) = x_a^T M x_b, is split exactly
    into per-word-pair contributions x_a[i] x_b[j] M[i, j] over the non-zero words of the two
    items (M = L^T L is only evaluated at those words), per-word sums of them and
    per-dimension products y_a,l y_b,l; dividing by |L x_a| |L x_b| splits the cosine (FILM's
    similarity) the same way. See :class:`PairExplanation`.

    Parameters
    ----------
    model : fitted linear metric
        FILM, MinimumClusterDistortion or any fitted estimator with ``components_``.
    x_a, x_b : array (n_features,) or (1, n_features), or a sparse row
        The two items as the model's input vectors (over the words when ``projection`` is given).
    feature_names : sequence of str
        One name per feature of x_a and x_b.
    n_top : int or None, default=10
        Per list, the n_top largest positive and the n_top most negative contributions; None
        lists everything (refused above a million word pairs).
    projection : array (n_features_in, n_words), optional
        Maps the words to the model's inputs (LSI: ``TextVectorizer.components_``); x_a and x_b
        are then word vectors and the model sees ``projection @ x``.

    Returns
    -------
    PairExplanation

    Examples
    --------
    A fitted linear metric with two learned dimensions over four words (any object with
    ``components_`` will do: FILM, MinimumClusterDistortion, ...):

    >>> import numpy as np
    >>> from learnsim.evaluation.explain import explain_pair, top_features
    >>> class Model:
    ...     components_ = np.array([[1.0, 0.5, 0.0, 0.0], [0.0, 0.0, 2.0, -1.0]])
    >>> names = ["cheap", "flights", "paris", "rome"]
    >>> a = np.array([1.0, 1.0, 1.0, 0.0])      # "cheap flights paris"
    >>> b = np.array([1.0, 0.0, 1.0, 0.0])      # "cheap paris"

    The inner product (L a) . (L b) = 1.5 * 1 + 2 * 2 = 5.5, split over the words, word pairs and
    dimensions:

    >>> e = explain_pair(Model(), a, b, names)
    >>> e.inner_product, round(e.cosine, 3)
    (5.5, 0.984)
    >>> [(w.feature, w.contribution) for w in e.words_b]
    [('paris', 4.0), ('cheap', 1.5)]
    """
    form = _linear_form(model, projection)
    names = _check_names(feature_names, form.n_features)
    n_top = _check_n_top(n_top, allow_none=True)
    ia, va = _check_vector(x_a, "x_a", form.n_features)
    ib, vb = _check_vector(x_b, "x_b", form.n_features)
    if n_top is None and ia.size * ib.size > _MAX_LISTED_PAIRS:
        raise ValueError(f"the pair has {ia.size} x {ib.size} word pairs, too many to list them all; "
                         "give n_top")

    inner = _quadratic(form, ia, va, ib, vb)
    sq_a = _quadratic(form, ia, va, ia, va)
    sq_b = _quadratic(form, ib, vb, ib, vb)
    # the distance from the difference vector itself: |a|^2 + |b|^2 - 2 a.b cancels for near pairs
    union = np.union1d(ia, ib)
    diff = np.zeros(union.size)
    diff[np.searchsorted(union, ia)] += va
    diff[np.searchsorted(union, ib)] -= vb
    nz = diff != 0
    distance = float(np.sqrt(max(_quadratic(form, union[nz], diff[nz], union[nz], diff[nz]), 0.0)))
    norm_a, norm_b = float(np.sqrt(max(sq_a, 0.0))), float(np.sqrt(max(sq_b, 0.0)))
    denom = norm_a * norm_b
    cosine = inner / denom if denom > 0 else 0.0

    def cos(v):
        return float(v) / denom if denom > 0 else 0.0

    Ra, Ga = form.factor_columns(ia)
    Rb, Gb = form.factor_columns(ib)
    ya, yb = Ra @ va, Rb @ vb
    ga, gb = Ga @ va, Gb @ vb
    # per word of a: x_a[i] (M x_b)[i]; of b: x_b[j] (M x_a)[j]
    word_a = va * (Ra.T @ yb + Ga.T @ (form.c * gb))
    word_b = vb * (Rb.T @ ya + Gb.T @ (form.c * ga))
    if form.beta:
        _, at_a, at_b = np.intersect1d(ia, ib, assume_unique=True, return_indices=True)
        word_a[at_a] += form.beta * va[at_a] * vb[at_b]
        word_b[at_b] += form.beta * va[at_a] * vb[at_b]
    per_dim = ya * yb
    # what lies outside the learned dimensions: beta x_a . x_b + sum_k c_k (G x_a)_k (G x_b)_k
    residual = float(np.dot(form.c * ga, gb))
    if form.beta:
        residual += form.beta * float(np.dot(va[at_a], vb[at_b]))

    def words(idx, vals, contrib):
        chosen = _select(contrib, n_top)
        listed = [WordContribution(names[idx[p]], int(idx[p]), float(vals[p]), float(contrib[p]),
                                   cos(contrib[p])) for p in chosen]
        return listed, float(contrib.sum() - contrib[chosen].sum())

    words_a, omitted_a = words(ia, va, word_a)
    words_b, omitted_b = words(ib, vb, word_b)
    rows, cols, vals, total = _word_pair_candidates(form, ia, va, ib, vb, n_top)
    pairs = [WordPairContribution(names[ia[r]], int(ia[r]), names[ib[q]], int(ib[q]), float(v), cos(v))
             for r, q, v in zip(rows, cols, vals)]
    dims_chosen = _select(per_dim, n_top)
    dims = [DimensionContribution(int(d), float(per_dim[d]), cos(per_dim[d])) for d in dims_chosen]
    return PairExplanation(
        inner_product=inner, norm_a=norm_a, norm_b=norm_b, cosine=float(cosine), distance=distance,
        words_a=words_a, words_b=words_b, word_pairs=pairs, dimensions=dims,
        residual_contribution=float(residual), n_words_a=int(ia.size), n_words_b=int(ib.size),
        omitted_words_a=omitted_a, omitted_words_b=omitted_b,
        omitted_word_pairs=float(total - vals.sum()),
        omitted_dimensions=float(per_dim.sum() - per_dim[dims_chosen].sum()))


# --------------------------------------------------------------------------- plot

def plot_dimension_weights(model, feature_names, dimension=0, n_top=10, *, ax=None, projection=None):
    """Bar chart of the words with the largest positive and negative weights in one learned
    dimension (row ``dimension`` of L; the FILM paper's Figure 5 shows the first row).

    Parameters
    ----------
    model, feature_names, n_top, projection
        As for :func:`top_features`.
    dimension : int, default=0
    ax : matplotlib Axes, optional
        Where to draw; by default a new figure (no pyplot, so no global backend is switched;
        save it with ``ax.figure.savefig(path)``).

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ImportError
        When matplotlib is not installed (``pip install learnsim[plot]``).

    References
    ----------
    .. [1] X. Tang and A. Aw, "FILM: A Fast, Interpretable, and Low-rank Metric Learning Approach
       for Sentence Matching", arXiv preprint, 2020 (paper 001 in ../shared/papers).

    Examples
    --------
    A fitted linear metric with two learned dimensions over four words (any object with
    ``components_`` will do: FILM, MinimumClusterDistortion, ...):

    >>> import numpy as np
    >>> from learnsim.evaluation.explain import explain_pair, top_features
    >>> class Model:
    ...     components_ = np.array([[1.0, 0.5, 0.0, 0.0], [0.0, 0.0, 2.0, -1.0]])
    >>> names = ["cheap", "flights", "paris", "rome"]
    >>> a = np.array([1.0, 1.0, 1.0, 0.0])      # "cheap flights paris"
    >>> b = np.array([1.0, 0.0, 1.0, 0.0])      # "cheap paris"
    >>> from learnsim.evaluation.explain import plot_dimension_weights
    >>> ax = plot_dimension_weights(Model(), names, dimension=1)     # doctest: +SKIP
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plot_dimension_weights needs matplotlib: pip install learnsim[plot]") from None
    info = top_features(model, feature_names, n_top, [dimension], projection=projection)[0]
    entries = list(info.positive) + list(info.negative)[::-1]     # largest first, most negative last
    if ax is None:
        fig = Figure(figsize=(6.4, max(2.5, 0.3 * len(entries) + 1.2)), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot(1, 1, 1)
    positions = np.arange(len(entries))[::-1]                     # the first entry at the top
    weights = [e.weight for e in entries]
    colors = ["tab:blue" if w > 0 else "tab:red" for w in weights]
    ax.barh(positions, weights, color=colors)
    ax.set_yticks(positions)
    ax.set_yticklabels([e.feature for e in entries])
    ax.axvline(0.0, color="black", linewidth=0.8)
    title = f"learned dimension {info.dimension}"
    if info.scale is not None:
        title += f" (scale {info.scale:.3g})"
    ax.set_title(title)
    ax.set_xlabel(f"weight in row {info.dimension} of L")
    return ax

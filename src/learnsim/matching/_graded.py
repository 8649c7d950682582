"""Graded pairs (a similarity score per pair, e.g. STS's 0-5): the pair regression chosen on
held-out pairs and measured against the input cosine by Pearson correlation.

:func:`choose_regressor` is the graded counterpart of :func:`~learnsim.matching.choose_matcher`:
it returns the fitted :class:`~learnsim.matching.PairScoreRegressor` that predicts a pair's
score, its :class:`~learnsim.matching.MatchRule` (``graded=True``) and FILM's search weight
(a :class:`~learnsim.film.SearchRule` chosen by held-out Pearson), each kept only when the
interval of its held-out gain over the input cosine lies above 0 (:mod:`learnsim.baseline`).
"""
from __future__ import annotations

import numpy as np

__all__ = ["REGRESSORS", "choose_regressor", "pearson_units"]

#: The graded rules ``choose_regressor`` compares with the input cosine.
REGRESSORS = ("regression", "regression+film")
_GRADED_BASELINE = "input cosine"
_MEASURE = "Pearson correlation (per-pair linearised)"
#: The character n-grams of the graded regression: 2-4 had the best dev Pearson on STS-B
#: (benchmarks/bench_pair_classifier.py: 0.802 against 0.797 for the classifier's 2-5).
GRADED_CHAR_NGRAMS = (2, 4)
#: How the graded learner's pair regressions weight their lexical blocks (issue 32, part 6).
GRADED_LEXICAL = "collection"
_WEIGHT_GRID = tuple(float(w) for w in np.round(np.linspace(0.0, 1.0, 21), 2))


def pearson_units(predicted, gold):
    """Per-pair terms whose mean is the Pearson correlation r of ``predicted`` with ``gold``.

    Term i is ``r + z_p,i z_g,i - r (z_p,i^2 + z_g,i^2) / 2`` (z: standardised with the
    population standard deviation), r plus the influence of pair i on r. Their mean is r exactly,
    and a paired bootstrap of the differences of two predictors' terms is the delta-method
    interval of the difference of their correlations: what :func:`learnsim.baseline.choose`
    needs to judge a graded rule per held-out pair. A constant ``predicted`` gives zeros.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.matching._graded import pearson_units
    >>> gold = np.array([0.0, 1.0, 2.5, 4.0, 5.0])
    >>> units = pearson_units(np.array([0.1, 0.3, 0.4, 0.8, 0.7]), gold)
    >>> units.shape, round(float(units.mean()), 4)
    ((5,), 0.9471)
    """
    p = np.asarray(predicted, dtype=np.float64)
    g = np.asarray(gold, dtype=np.float64)
    if p.shape != g.shape or p.ndim != 1:
        raise ValueError(f"predicted and gold must be 1-D and of equal length; got {p.shape} and {g.shape}")
    sp, sg = p.std(), g.std()
    if sp == 0 or sg == 0:
        return np.zeros(p.size)
    zp, zg = (p - p.mean()) / sp, (g - g.mean()) / sg
    r = float(np.mean(zp * zg))
    return r + zp * zg - 0.5 * r * (zp ** 2 + zg ** 2)


def _regressor(embedding, vectorizer, random_state, alpha="auto", encoder=None):
    from .pair_classifier import DEFAULT_FEATURES, PairScoreRegressor

    features = (DEFAULT_FEATURES + (("embedding_cosine",) if embedding is not None else ())
                + (("encoder_cosine",) if encoder is not None else ()))
    return PairScoreRegressor(vectorizer=vectorizer, embedding=embedding, features=features, alpha=alpha,
                              char_ngram_range=GRADED_CHAR_NGRAMS, random_state=random_state, encoder=encoder,
                              lexical=GRADED_LEXICAL)


def cosine_regressor(vectorizer, texts, pairs, random_state=0, encoder=None):
    """The baseline as a graded rule: a linear map of the input cosine to the scores' scale
    (:class:`~learnsim.matching.PairScoreRegressor` on the ``"input_cosine"`` block alone, or
    on ``"encoder_cosine"`` over a pre-trained ``encoder``; least squares on ``pairs``), so its
    Pearson correlation is the cosine's."""
    from .pair_classifier import PairScoreRegressor

    block = "input_cosine" if encoder is None else "encoder_cosine"
    model = PairScoreRegressor(vectorizer=None if encoder is not None else vectorizer, features=(block,),
                               alpha=1e-6, random_state=random_state, encoder=encoder,
                               lexical=GRADED_LEXICAL if encoder is None else "fitted")
    return model.fit(list(texts), pairs)


def choose_regressor(metric, X, train, held, *, texts, vectorizer=None, candidates=REGRESSORS, check_baseline=True,
                     random_state=0, encoder=None, lexical=None):
    """Choose the graded rule and FILM's search weight on held-out graded pairs.

    The candidate regressions (:data:`REGRESSORS`: :class:`~learnsim.matching.PairScoreRegressor`
    on the default feature blocks with character 2-4 grams, and the same with FILM's learned
    cosine, ``"embedding_cosine"``) are trained on ``train`` and judged on ``held`` beside the
    input cosine (``"cosine"``, the baseline), per pair by :func:`pearson_units`; the best mean
    is chosen (ties to the baseline) and its gain cross-fitted over the choice
    (:func:`learnsim.baseline.choose`). The chosen regression is refitted on all the pairs with
    the alpha it chose by cross-validation; when no candidate beats the cosine for certain, the
    rule is the cosine mapped linearly to the scores' scale (:func:`cosine_regressor`) and a
    :class:`~learnsim.baseline.BaselineWarning` says so.

    The search weight w of ``w cos(x, x') + (1 - w) cos(Lx, Lx')`` is chosen the same way over a
    grid from 0 to 1 (w = 1, the input cosine, is the baseline) by the held-out pairs' Pearson.

    Parameters
    ----------
    metric : fitted FILM
        Fitted on ``train`` (its graded triplets), on the rows of ``X``.
    X : the vectors of every text (rows the pairs index into)
    train, held : graded Pairs
    texts : sequence of str
        The texts of the rows of X.
    vectorizer : fitted TextVectorizer, optional
        The one that made X (sparse term vectors); None or an LSI vectoriser: the regressions
        fit their own tf.idf and have no FILM variant.
    candidates : sequence of names from :data:`REGRESSORS`
    check_baseline : bool
        False: the best candidate on the held-out pairs, unchecked (reports None).
    encoder : fitted text encoder, optional
        The pre-trained sentence encoder that made X (the input cosine is then its cosine):
        the regressions keep their own lexical blocks and add the encoder's cosine, and
        ``"regression+film"`` FILM's learned cosine over the encoder's vectors.
    lexical : sparse matrix, optional
        The tf.idf vectors of the texts (rows of X): the search rule then also mixes the
        lexical cosine with the dense one, its weight chosen by held-out Pearson
        (``SearchRule.lexical_weight``, :func:`learnsim.film.choose_lexical_weight`).

    Returns
    -------
    (regressor, MatchRule, SearchRule)

    Examples
    --------
    Twenty sentences paraphrased or not, graded 0-5 (``check_baseline=False``: too few pairs for
    a check):

    >>> import numpy as np
    >>> from learnsim.text import TextVectorizer
    >>> from learnsim.film import FILM
    >>> from learnsim.supervision import Pairs
    >>> from learnsim.matching._graded import choose_regressor
    >>> words = ["cat", "dog", "car", "tree", "sun", "rain", "book", "song", "road", "lake"]
    >>> texts = [f"the {w} is here today" for w in words] + [f"a {w} was here" for w in words]
    >>> X = TextVectorizer(norm="l2").fit_transform(texts)
    >>> idx = np.array([[i, i + 10] for i in range(10)] + [[i, (i + 3) % 10 + 10] for i in range(10)])
    >>> scores = np.r_[np.full(10, 4.5), np.full(10, 0.5)] + np.linspace(0, 0.4, 20)
    >>> train, held = Pairs(idx[::2], scores=scores[::2]), Pairs(idx[1::2], scores=scores[1::2])
    >>> film = FILM(n_components=4, max_iter=20, baseline_holdout=None, random_state=0).fit(X, np.arange(20) % 10)
    >>> model, rule, search = choose_regressor(film, X, train, held, texts=texts, candidates=("regression",),
    ...                                        check_baseline=False)
    >>> rule.graded, rule.matcher, sorted(rule.pearsons)
    (True, 'regression', ['regression'])
    >>> model.predict(held.indices, X=texts).shape
    (10,)
    """
    from ..baseline import choose
    from ..film import SearchRule
    from ._matchers import pair_similarity
    from ._rule import MatchRule
    from ..supervision import Pairs

    unknown = [c for c in candidates if c not in REGRESSORS]
    if unknown or not candidates:
        raise ValueError(f"candidates must be names from {REGRESSORS}; got {list(candidates)}")
    texts = list(texts)
    gold = np.asarray(held.scores, dtype=np.float64)
    sparse_terms = encoder is None and vectorizer is not None and getattr(vectorizer, "n_components_", None) is None
    if not sparse_terms:
        vectorizer = None
        if encoder is None:
            candidates = [c for c in candidates if c != "regression+film"]
    cosine = pair_similarity(X, held.indices)
    units = {"cosine": pearson_units(cosine, gold)} if check_baseline else {}
    fitted = {}
    first = None
    for name in candidates:
        model = _regressor(metric if name == "regression+film" else None, vectorizer, random_state, encoder=encoder)
        # the same texts, vectoriser and encoder: only FILM's learned cosine is new, so the
        # representations (the texts' analysis, their collection, the hashed characters, the
        # encoder's vectors) are those of the first fit, as the duplicate rule's classifiers share them
        fitted[name] = model._fit_scored(texts, train, shared=first)
        first = fitted[name] if first is None else first
        units[name] = pearson_units(model.predict(held.indices), gold)
    order = list(units)
    C = np.vstack([units[n] for n in order])
    pearsons = {n: float(C[k].mean()) for k, n in enumerate(order)}
    report = None
    if check_baseline:
        chosen, report = choose(C, 0, measure=_MEASURE, unit="held-out pairs", baseline_name=_GRADED_BASELINE,
                                owner="graded pair rule", random_state=random_state, stacklevel=2,
                                detail=lambda c: {"matcher": order[c]})
    else:
        chosen = int(np.argmax(C.mean(axis=1)))
    name = order[chosen]
    everything = Pairs(np.vstack([train.indices, held.indices]),
                       scores=np.concatenate([np.asarray(train.scores, dtype=np.float64), gold]))
    if name == "cosine":
        regressor = cosine_regressor(vectorizer, texts, everything, random_state, encoder=encoder)
    else:
        regressor = _regressor(metric if name == "regression+film" else None, vectorizer, random_state,
                               alpha=fitted[name].alpha_, encoder=encoder)._fit_scored(texts, everything,
                                                                                       shared=fitted[name])
    rule = MatchRule(name, {}, gold.size, report, None, None, graded=True, pearsons=pearsons)
    search = _search_rule(SearchRule, metric, X, held.indices, gold, cosine, check_baseline, random_state, choose)
    if lexical is not None:
        search = _lexical_weight(search, metric, X, lexical, held.indices, gold, check_baseline, random_state)
    return regressor, rule, search


def _lexical_weight(search, metric, X, L, idx, gold, check_baseline, random_state):
    """The search rule with the weight of the lexical cosine (over ``L``) mixed with its dense
    scoring, chosen by held-out Pearson (:func:`learnsim.film.choose_lexical_weight`)."""
    from ..film import LEXICAL_WEIGHT_GRID, choose_lexical_weight
    from ._matchers import pair_similarity

    lexical = pair_similarity(L, idx)
    w = 1.0 if search.input_weight is None else float(search.input_weight)
    dense = w * pair_similarity(X, idx)
    if w < 1.0:
        dense = dense + (1.0 - w) * pair_similarity(np.asarray(metric.transform(X), dtype=np.float64), idx)
    grid = LEXICAL_WEIGHT_GRID
    units = np.vstack([pearson_units(lam * lexical + (1.0 - lam) * dense, gold) for lam in grid])
    weight, report = choose_lexical_weight(units, grid, measure=_MEASURE, unit="held-out pairs",
                                           check_baseline=check_baseline, random_state=random_state,
                                           owner="lexical + dense search (graded pairs)")
    return search.with_lexical(weight, grid, units.mean(axis=1), report)


def _search_rule(SearchRule, metric, X, idx, gold, cosine, check_baseline, random_state, choose):
    """FILM's search weight by held-out Pearson of the mixed cosine (w = 1: the input cosine)."""
    from ._matchers import pair_similarity

    E = np.asarray(metric.transform(X), dtype=np.float64)
    learned = pair_similarity(E, idx)
    grid = _WEIGHT_GRID
    C = np.vstack([pearson_units(w * cosine + (1.0 - w) * learned, gold) for w in grid])
    base = len(grid) - 1
    if not check_baseline:
        return SearchRule(grid[int(np.argmax(C.mean(axis=1)))], grid, C.mean(axis=1), idx.shape[0], None)
    chosen, report = choose(C, base, measure=_MEASURE, unit="held-out pairs", baseline_name=_GRADED_BASELINE,
                            owner="FILM search (graded pairs)", random_state=random_state, stacklevel=3,
                            detail=lambda c: {"input_weight": grid[c]})
    return SearchRule(grid[chosen], grid, C.mean(axis=1), idx.shape[0], report)

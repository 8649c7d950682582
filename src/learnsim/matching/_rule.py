"""The duplicate rule of a FILM fitted on pairs, chosen on held-out pairs: :func:`choose_matcher`
compares the input-cosine threshold with the learned matchers (:data:`MATCHERS`) and returns the
matcher with its :class:`MatchRule` (which rule and why), saved in the model file as
"match_rule".
"""
from __future__ import annotations

import numpy as np

__all__ = ["MATCHERS", "MatchRule", "choose_matcher"]

#: The duplicate rules ``choose_matcher`` can compare (besides the input-cosine threshold).
MATCHERS = ("threshold", "knn", "classifier")
_MATCH_BASELINE = "input cosine threshold"
# every rule a MatchRule may name, and each in words (by whether the model is graded)
_RULES = ("cosine", "threshold", "knn", "classifier", "classifier+film", "regression", "regression+film")
_RULE_NAMES = {("cosine", False): "input cosine", ("threshold", False): "threshold on the mixed cosine",
               ("knn", False): "pairwise kNN in FILM's space", ("classifier", False): "pair classifier",
               ("classifier+film", False): "pair classifier with FILM's cosine",
               ("cosine", True): "input cosine (mapped to the scores' scale)",
               ("regression", True): "pair regression",
               ("regression+film", True): "pair regression with FILM's cosine"}


class MatchRule:
    """Which duplicate rule a model uses and why: chosen on held-out pairs by
    :func:`choose_matcher`, saved in the model file as "match_rule" beside the matcher itself.

    Attributes
    ----------
    matcher : str
        ``"cosine"`` (a threshold on the input cosine, the baseline), ``"threshold"`` (a threshold
        on FILM's mixed cosine), ``"knn"`` (the paper's pairwise kNN rule), ``"classifier"`` or
        ``"classifier+film"`` (:class:`~learnsim.pair_classifier.PairClassifierMatcher` without
        or with FILM's learned cosine as a feature, its ``"embedding_cosine"`` block).
    accuracies : dict
        Held-out pair accuracy of every candidate (cross-fitted for the rules fitted on the
        held-out pairs; the classifiers are trained on the training pairs).
    n_pairs : int
    baseline_gain : BaselineGain or None
        The chosen rule against the input-cosine threshold, per held-out pair (None: unchecked).
    mixed_input_weight : float or None
        The input-cosine weight that the mixed-cosine threshold rule chooses on all the held-out
        pairs (by ROC AUC), whichever rule is used: how much of FILM's cosine helps to decide
        pairs.
    cosine_threshold : float or None
        The threshold on the input cosine (the baseline rule) fitted on all the held-out pairs,
        whichever rule is used: what ``learnsim evaluate --pairs`` scores the baseline with.
        None in model files written before it was saved (the threshold is then unknown), for
        graded models, and when no threshold separates the held-out pairs.
    graded : bool
        True for a model fitted on graded pairs: the rule predicts a score (``"regression"``,
        ``"regression+film"``: :class:`~learnsim.matching.PairScoreRegressor` without or with
        FILM's learned cosine; ``"cosine"``: a linear map of the input cosine, the baseline).
    pearsons : dict
        Graded models: the held-out Pearson correlation of every candidate with the scores.

    Examples
    --------
    :func:`choose_matcher` returns one (its example shows how); made by hand, a rule that
    uses the input-cosine threshold:

    >>> from learnsim.matching import MatchRule
    >>> rule = MatchRule("cosine", accuracies={"cosine": 0.81, "threshold": 0.79}, n_pairs=400)
    >>> rule.matcher, rule.n_pairs, rule.baseline_gain is None
    ('cosine', 400, True)
    >>> rule.describe(), rule.cosine_threshold is None       # none given: unknown
    ('input cosine', True)
    """

    def __init__(self, matcher="cosine", accuracies=None, n_pairs=0, baseline_gain=None, mixed_input_weight=None,
                 cosine_threshold=None, graded=False, pearsons=None):
        self.matcher = matcher
        self.accuracies = dict(accuracies or {})
        self.n_pairs = int(n_pairs)
        self.baseline_gain = baseline_gain
        self.mixed_input_weight = mixed_input_weight
        self.cosine_threshold = None if cosine_threshold is None else float(cosine_threshold)
        self.graded = bool(graded)
        self.pearsons = dict(pearsons or {})

    def describe(self):
        """The rule's name in words (what ``learnsim evaluate --pairs`` and ``learnsim fit`` print)."""
        return _RULE_NAMES[(self.matcher, self.graded)]

    def _get_state(self):
        gain = None if self.baseline_gain is None else self.baseline_gain.to_dict()
        return ({"matcher": self.matcher, "accuracies": {k: float(v) for k, v in self.accuracies.items()},
                 "n_pairs": self.n_pairs, "baseline_gain": gain, "mixed_input_weight": self.mixed_input_weight,
                 "cosine_threshold": self.cosine_threshold, "graded": self.graded,
                 "pearsons": {k: float(v) for k, v in self.pearsons.items()}}, {})

    @classmethod
    def _from_state(cls, meta, arrays):
        import numbers

        from ..baseline import BaselineGain

        names = _RULES
        if not isinstance(meta, dict) or meta.get("matcher") not in names:
            raise ValueError(f"MatchRule state: matcher must be one of {list(names)}")
        acc = meta.get("accuracies", {})
        if not isinstance(acc, dict) or not all(k in names and isinstance(v, numbers.Real) and 0 <= v <= 1
                                                for k, v in acc.items()):
            raise ValueError("MatchRule state: accuracies must map rule names to numbers in [0, 1]")
        n = meta.get("n_pairs", 0)
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
            raise ValueError(f"MatchRule state: n_pairs must be a non-negative integer; got {n!r}")
        gain = meta.get("baseline_gain")
        gain = None if gain is None else BaselineGain.from_dict(gain, owner="MatchRule")
        w = meta.get("mixed_input_weight")
        if w is not None:
            from ..film.hybrid import check_input_weight

            w = check_input_weight(w, "MatchRule state: mixed_input_weight")
        # saved since issue 32 (older files: the cosine threshold is unknown, the rule labelled)
        threshold = meta.get("cosine_threshold")
        if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, numbers.Real)
                                      or not np.isfinite(threshold)):
            raise ValueError(f"MatchRule state: cosine_threshold must be a finite number or null; got {threshold!r}")
        graded = meta.get("graded", False)
        if not isinstance(graded, bool):
            raise ValueError(f"MatchRule state: graded must be true or false; got {graded!r}")
        if (meta["matcher"], graded) not in _RULE_NAMES:
            raise ValueError(f"MatchRule state: {meta['matcher']!r} is not a {'graded' if graded else 'duplicate'} rule")
        pearsons = meta.get("pearsons", {})
        if not isinstance(pearsons, dict) or not all(k in names and isinstance(v, numbers.Real)
                                                     and not isinstance(v, bool) and -1 <= v <= 1
                                                     for k, v in pearsons.items()):
            raise ValueError("MatchRule state: pearsons must map rule names to numbers in [-1, 1]")
        rule = cls(meta["matcher"], acc, n, gain, w, threshold, graded, pearsons)
        if rule.knn_chosen_by_auto:
            from .._utils.callers import warn_outside

            warn_outside(OLD_AUTO_KNN, UserWarning)
        return rule

    @property
    def knn_chosen_by_auto(self):
        """Whether the rule is the pairwise kNN rule chosen among several (``--matcher auto``), as
        model files saved before :func:`choose_matcher` stopped choosing it hold: their
        accuracies name a rule beside the kNN rule and the input-cosine baseline (named alone,
        ``--matcher knn``, only those two are measured)."""
        return self.matcher == "knn" and bool(set(self.accuracies) - {"cosine", "knn"})


#: The warning on loading a model whose --matcher auto chose the kNN rule (before it was used only
#: when named): its answers are kept (a rule swapped on load would answer differently, silently
#: or not, and which rule auto chooses now is known only by refitting).
OLD_AUTO_KNN = ("this model's duplicate rule is the pairwise kNN rule, which 'learnsim fit --matcher auto' chose "
                "before it stopped choosing it: the rule decides a pair by the other texts given with it, so two "
                "texts given alone (a pair decided by itself, 'learnsim match --index ... --text' with few "
                "near documents) are always duplicates, with one probability for every pair it accepts. Its answers "
                "are kept; refit ('learnsim fit --method film --pairs FILE --model M.npz', learnsim.fit(texts, "
                "pairs=..., method='film')) for a rule that decides each pair by its two texts, or add "
                "'--matcher knn' to keep the kNN rule knowingly")


def _half_split(labels, random_state):
    """Two halves of the pairs, each with both labels in proportion (None when a label has
    fewer than two pairs)."""
    rng = np.random.default_rng(random_state)
    halves = ([], [])
    for value in (False, True):
        members = rng.permutation(np.flatnonzero(labels == value))
        if members.size < 2:
            return None
        cut = members.size // 2
        halves[0].append(members[:cut])
        halves[1].append(members[cut:])
    return np.sort(np.concatenate(halves[0])), np.sort(np.concatenate(halves[1]))


def choose_matcher(metric, X, train, held, *, texts=None, vectorizer=None, candidates=MATCHERS,
                   check_baseline=True, random_state=0, encoder=None):
    """Choose the duplicate rule on held-out pairs and measure it against a threshold on the
    input cosine (the rule of :mod:`learnsim.baseline`).

    Candidates, each scored by its correctness on every held-out pair:

    - ``"cosine"`` (the baseline) and ``"threshold"`` (:class:`~learnsim.matching.ThresholdMatcher`
      on FILM's cosine mixed with the input cosine, weight chosen by ROC AUC) and ``"knn"``
      (:class:`~learnsim.matching.PairwiseKNNMatcher` in FILM's space, the paper's rule) are fitted
      on held-out pairs: each half of the held-out pairs is judged by the rule fitted on the
      other half (cross-fitted), since a threshold judged on the pairs that chose it is optimistic;
    - ``"classifier"`` and ``"classifier+film"`` (:class:`~learnsim.pair_classifier.PairClassifierMatcher`
      with its default features, and with FILM's learned cosine as well) are trained on the
      training pairs and judged on all the held-out pairs.

    Among several candidates, ``"knn"`` is left out when the held-out pairs hold more than
    20,000 texts (it ranks each against all the others).

    The rule with the best mean accuracy is chosen (ties to the baseline); the reported gain over
    the baseline is cross-fitted over the choice as well (:func:`learnsim.baseline.cross_fitted`).
    Among several candidates the kNN rule is measured and reported (``accuracies``) but never
    chosen: it decides a pair by the texts decided with it (two texts given alone are always
    mutual nearest neighbours, so any two texts are duplicates), its held-out accuracy is that
    of a collection where every text's duplicate is present, and its probability is one number
    for every pair it accepts. It is used when it is the only candidate (asked for by name).
    When the chosen rule does not beat the baseline, the baseline is used and a warning says so.

    Parameters
    ----------
    metric : fitted FILM
    X : the vectors of every text (rows the pairs index into)
    train, held : Pairs with labels
        The pairs FILM was trained on and the held-out ones.
    texts : sequence of str, optional
        The texts of the rows of X; needed by the classifiers.
    vectorizer : fitted TextVectorizer, optional
        The one that made X; the classifiers use it for their word features (None or an LSI
        vectoriser: the classifier fits its own tf.idf and has no FILM variant).
    candidates : sequence of names from :data:`MATCHERS`
    check_baseline : bool
        False: no baseline candidate and no report (``baseline_gain`` None).
    encoder : fitted text encoder, optional
        The pre-trained sentence encoder that made X (then ``vectorizer`` is None): the input
        cosine is the encoder's, and the classifiers keep their own word tf.idf, character
        n-grams, ... and add the encoder's cosine (``"encoder_cosine"``), and
        ``"classifier+film"`` FILM's learned cosine over the encoder's vectors.

    Returns
    -------
    (matcher, MatchRule)
        The chosen rule fitted for use: rules of the held-out pairs refitted on all of them
        (keeping only their rows as the collection), a classifier refitted on all the pairs
        (with the C its training-pair fit chose).

    Examples
    --------
    Choose between a threshold on FILM's mixed cosine and the pairwise kNN rule on held-out
    pairs of a small synthetic corpus (``check_baseline=False``: no comparison with the input
    cosine):

    >>> import numpy as np
    >>> from learnsim.datasets import make_clustered_corpus
    >>> from learnsim.text import TextVectorizer
    >>> from learnsim.film import FILM
    >>> from learnsim.supervision import Pairs
    >>> from learnsim.matching import choose_matcher
    >>> corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=10, vocab_size=500, random_state=0)
    >>> X = TextVectorizer(norm="l2").fit_transform(corpus.data)
    >>> film = FILM(n_components=8, max_iter=50, baseline_holdout=None, random_state=0).fit(X, corpus.target)
    >>> i = np.arange(0, 60, 2)
    >>> P = np.r_[np.c_[i, i + 1], np.c_[i, (i + 11) % 60]]      # same cluster, then other clusters
    >>> labels = np.r_[np.ones(30), np.zeros(30)].astype(bool)
    >>> train = np.arange(60) % 2 == 0
    >>> matcher, rule = choose_matcher(film, X, Pairs(P[train], labels=labels[train]),
    ...                                Pairs(P[~train], labels=labels[~train]),
    ...                                candidates=("threshold", "knn"), check_baseline=False)
    >>> type(matcher).__name__ in ("ThresholdMatcher", "PairwiseKNNMatcher")
    True
    >>> sorted(rule.accuracies)
    ['knn', 'threshold']
    """
    import warnings

    from ..baseline import choose, unchecked
    from ._matchers import PairwiseKNNMatcher, ThresholdMatcher
    from ..supervision import Pairs

    unknown = [c for c in candidates if c not in MATCHERS]
    if unknown or not candidates:
        raise ValueError(f"candidates must be names from {MATCHERS}; got {list(candidates)}")
    labels = np.asarray(held.labels, dtype=bool)
    rows, inverse = np.unique(held.indices, return_inverse=True)
    local = inverse.reshape(held.indices.shape)
    Xh = X[rows]
    knn_on = _DistinctTexts(Xh, local, None if texts is None else [texts[r] for r in rows])
    makers = {"cosine": lambda: ThresholdMatcher(metric, input_weight=1.0),
              "threshold": lambda: ThresholdMatcher(metric, input_weight="auto"),
              "knn": lambda: knn_on.rule(PairwiseKNNMatcher(metric))}
    auto = len(candidates) > 1
    # the kNN rule ranks every held-out text against all the others (quadratic); chosen among
    # others, it is left out above _KNN_MAX_TEXTS texts (it never won on the Quora sample)
    skip_knn = auto and Xh.shape[0] > _KNN_MAX_TEXTS
    names = (["cosine"] if check_baseline else []) + [c for c in ("threshold", "knn") if c in candidates
                                                      and not (c == "knn" and skip_knn)]
    scores = {}
    halves = _half_split(labels, random_state)
    if halves is not None:
        for name in names:
            if name == "knn" and not knn_on.judged_apart(local, labels, halves):
                continue            # a half's pairs of two texts are all of one kind: no k to choose
            correct = np.empty(labels.size)
            for fit_on, judge in (halves, halves[::-1]):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")      # e.g. k values beyond a small collection
                    rule = makers[name]().fit(Xh, Pairs(local[fit_on], labels=labels[fit_on]))
                correct[judge] = rule.predict(local[judge]).astype(bool) == labels[judge]
            scores[name] = correct
    classifiers = {}
    if encoder is not None:
        vectorizer = None       # X is the encoder's: the classifiers fit their own word tf.idf
    if "classifier" in candidates:
        classifiers = _train_classifiers(metric, texts, vectorizer, train, random_state, encoder)
        for name, model in classifiers.items():
            scores[name] = model.predict(held).astype(bool) == labels
    if not scores:
        # too few held-out pairs of a kind to judge the rules fitted on them
        name = "threshold" if "threshold" in candidates else candidates[0]
        if name == "classifier":
            name = "threshold"
        report = unchecked(f"the {labels.size} held-out pairs hold fewer than two of a kind", baseline_name=_MATCH_BASELINE,
                           owner="FILM duplicate rule", stacklevel=2) if check_baseline else None
        matcher = _unwrapped(makers[name]().fit(Xh, Pairs(local, labels=labels)))
        return matcher, MatchRule(name, {}, labels.size, report, getattr(matcher, "input_weight_", None),
                                  _cosine_threshold(makers["cosine"], Xh, Pairs(local, labels=labels)))
    accuracies = {n: float(scores[n].mean()) for n in scores}
    # Chosen among several rules, the kNN rule is measured (and reported) but not eligible: it
    # decides a pair by the other texts decided with it, and its held-out accuracy is that of a
    # collection holding every text's duplicate, which 'learnsim match' never has (two texts
    # given alone are always each other's nearest: a phone note and a weather note were
    # duplicates at P 0.929, one constant for every pair it accepts). The others decide a pair by
    # its two texts, with a probability per pair.
    order = [n for n in scores if not (n == "knn" and len(candidates) > 1)]
    if not order:       # only the kNN rule was measured: the others lacked pairs of a kind
        order = list(scores)
    C = np.array([scores[n] for n in order], dtype=np.float64)
    report = None
    if check_baseline and "cosine" in scores:
        chosen, report = choose(C, 0, measure="pair accuracy", unit="held-out pairs", baseline_name=_MATCH_BASELINE,
                                owner="FILM duplicate rule", random_state=random_state, stacklevel=2,
                                detail=lambda c: {"matcher": order[c]})
    else:
        chosen = int(np.argmax(C.mean(axis=1)))
    name = order[chosen]
    if name in classifiers:
        everything = Pairs(np.vstack([train.indices, held.indices]),
                           labels=np.concatenate([np.asarray(train.labels, bool), labels]))
        matcher = _classifier(metric if name == "classifier+film" else None, vectorizer, random_state,
                              everything.n_pairs, encoder)
        # C as cross-validated on the training pairs: the refit's folds set only its threshold
        # and calibration (one C instead of the grid: a fifth of the fits)
        matcher.C = classifiers[name].C_
        matcher._fit_labelled(list(texts), everything.indices, np.asarray(everything.labels, dtype=bool),
                              shared=classifiers[name])
    else:
        matcher = _unwrapped(makers[name]().fit(Xh, Pairs(local, labels=labels)))
    mixed = matcher if name == "threshold" else makers["threshold"]().fit(Xh, Pairs(local, labels=labels))
    cosine = _cosine_threshold(makers["cosine"], Xh, Pairs(local, labels=labels))
    return matcher, MatchRule(name, accuracies, labels.size, report, mixed.input_weight_, cosine)


def _unwrapped(fitted):
    return fitted.matcher if isinstance(fitted, _OnDistinct) else fitted


class _DistinctTexts:
    """The kNN rule over the distinct texts of the held-out pairs, as DuplicateRule decides with
    it: a pair of two identical texts holds a copy of its text (learnsim.datasets.pairs), and
    counted as one more text the copy stood before every other neighbour of its text, so that
    k = 1 lost the text's duplicates and k was chosen on a collection the rule never decides
    among. Each text is one row; a pair of two copies is a duplicate under every k (an exact
    copy), so it is judged so and takes no part in choosing k. Without the texts, the rows as
    given."""

    def __init__(self, Xh, local, texts):
        self.Xh, self.where = Xh, np.arange(Xh.shape[0])
        if texts is not None:
            first, keep = {}, []
            for i, t in enumerate(texts):
                self.where[i] = first.setdefault(t, len(keep))
                if self.where[i] == len(keep):
                    keep.append(i)
            if len(keep) < len(texts):
                self.Xh = Xh[np.asarray(keep)]

    def rule(self, matcher):
        return _OnDistinct(self, matcher)

    def judged_apart(self, local, labels, halves):
        """Whether each half holds pairs of two distinct texts of both kinds (what a kNN rule
        is fitted on)."""
        two = self.where[local[:, 0]] != self.where[local[:, 1]]
        return all(np.unique(labels[half][two[half]]).size == 2 for half in halves)


class _OnDistinct:
    """A PairwiseKNNMatcher fitted and asked over :class:`_DistinctTexts` (pairs of held-out
    rows in, as the other rules take them); ``fit`` returns the matcher itself."""

    def __init__(self, on, matcher):
        self.on, self.matcher = on, matcher

    def fit(self, Xh, pairs):
        from ..supervision import Pairs

        idx = self.on.where[np.asarray(pairs.indices)]
        two = idx[:, 0] != idx[:, 1]
        self.matcher.fit(self.on.Xh, Pairs(idx[two], labels=np.asarray(pairs.labels, dtype=bool)[two]))
        return self

    def predict(self, pairs):
        idx = self.on.where[np.asarray(pairs)]
        out = np.ones(idx.shape[0], dtype=np.int64)
        two = idx[:, 0] != idx[:, 1]
        if two.any():
            out[two] = self.matcher.predict(idx[two])
        return out


def _cosine_threshold(make, Xh, pairs):
    """The input-cosine threshold fitted on all the held-out pairs (None when none separates them)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            threshold = float(make().fit(Xh, pairs).threshold_)
        except ValueError:          # e.g. held-out pairs of one kind
            return None
    return threshold if np.isfinite(threshold) else None


_KNN_MAX_TEXTS = 20_000


def _classifier(embedding, vectorizer, random_state, n_pairs=0, encoder=None):
    from .pair_classifier import DEFAULT_FEATURES, PairClassifierMatcher

    # FILM's learned cosine as one more feature: its full block (2 d + 1 features) made each fit
    # ten times slower and, fitted on the pairs FILM learned from, overfit more (Quora sample,
    # pairs 8001-10000 of dev: accuracy 0.750 with the block, 0.762 with the cosine, 0.776
    # without FILM)
    # and a pre-trained encoder's cosine, where there is one: the dense signal beside the lexical blocks
    features = (DEFAULT_FEATURES + (("embedding_cosine",) if embedding is not None else ())
                + (("encoder_cosine",) if encoder is not None else ()))
    # folds choose C and calibrate: 3 of tens of thousands of pairs are as many pairs as 5 of
    # ten thousand, at 60 % of the fits
    return PairClassifierMatcher(vectorizer=vectorizer, embedding=embedding, features=features, encoder=encoder,
                                 n_splits=3 if n_pairs > _FEW_FOLDS_ABOVE else 5, random_state=random_state)


_FEW_FOLDS_ABOVE = 20_000


def _train_classifiers(metric, texts, vectorizer, train, random_state, encoder=None):
    """The pair classifiers trained on the training pairs: default features, and (when the
    vectoriser gives sparse term vectors, FILM's input, or FILM learned on an ``encoder``'s
    vectors) with FILM's learned cosine; with an encoder, both with the encoder's cosine."""
    if texts is None:
        raise ValueError("the 'classifier' candidate needs the texts")
    labels = np.asarray(train.labels, dtype=bool)
    if labels.sum() < 2 or (~labels).sum() < 2:      # its folds need two of each kind
        return {}
    sparse_terms = encoder is None and vectorizer is not None and getattr(vectorizer, "n_components_", None) is None
    if not sparse_terms:
        vectorizer = None
    texts = list(texts)
    first = _classifier(None, vectorizer, random_state, train.n_pairs, encoder).fit(texts, train)
    models = {"classifier": first}
    if sparse_terms or encoder is not None:
        # the same texts and vectoriser (and encoder): only FILM's learned cosine is new
        models["classifier+film"] = _classifier(metric, vectorizer, random_state, train.n_pairs,
                                                encoder)._fit_labelled(texts, np.asarray(train.indices), labels,
                                                                       shared=first)
    return models

"""The duplicate rule a FILM fitted on pairs saved with it, behind one interface.

``learnsim fit --method film --pairs`` (and :func:`learnsim.fitting.fit_parts` on pairs) chooses
the rule on held-out pairs and saves it as the model's ``"matcher"`` part, with how it was chosen
as ``"match_rule"``. :class:`DuplicateRule` wraps whichever matcher that is, for
:meth:`learnsim.pipeline.Pipeline.match` and ``learnsim match`` / ``learnsim evaluate``.
"""
from __future__ import annotations

import numpy as np

__all__ = ["DuplicateRule"]


def _say_uncentred(matcher):
    """Warn, once per matcher object, where a model file's threshold rule or pair classifier was
    calibrated apart from its threshold (a free Platt fit, before the calibration was centred on
    the threshold): its probabilities between the two points now stop at 0.5, on the side of the
    decision (learnsim.matching._matchers._agreeing), which is said rather than done silently."""
    if getattr(matcher, "_uncentred_said", False):
        return
    threshold, slope = float(matcher.threshold_), float(matcher.slope_)
    intercept = float(getattr(matcher, "calibration_intercept_", getattr(matcher, "intercept_", 0.0)))
    if not np.isfinite(threshold) or abs(slope * threshold + intercept) <= 1e-9 * max(1.0, abs(slope * threshold)):
        return
    from .._utils.callers import warn_outside

    matcher._uncentred_said = True
    half = f"{-intercept / slope:.4g}" if slope > 0 else "no score"
    warn_outside(f"this model's duplicate rule was calibrated before its probability was centred on its threshold: "
                 f"its probability crossed 0.5 at {half}, its decision at {threshold:.4g}, so pairs scored between the "
                 "two got a probability on the other side of their decision; they now get 0.5 (duplicates) or just "
                 "under it (the others), the decisions unchanged. Refit ('learnsim fit --method film --pairs FILE "
                 "--model M.npz') for probabilities calibrated around the threshold", UserWarning)


class DuplicateRule:
    """The duplicate rule of a model file behind one interface, whichever matcher it holds: a
    ThresholdMatcher (a threshold on a cosine), a PairwiseKNNMatcher (mutual nearest neighbours
    among the collection) or a PairClassifierMatcher (a classifier on pair features, which needs
    the texts). Methods take index pairs into a collection given by its vectors ``X`` and, for
    the classifier, its ``texts`` (default: the texts last set in ``_texts``, which is how
    ``learnsim evaluate`` passes them).

    Parameters
    ----------
    matcher : fitted matcher
        The model's ``"matcher"`` part.
    rule : optional
        The model's ``"match_rule"`` part (how the rule was chosen); None for older models.

    Attributes
    ----------
    matcher : the fitted matcher
    name : str
        The rule's name in the model's "match_rule" part ("cosine", "threshold", "knn",
        "classifier", "classifier+film"); "threshold" for older models without it.
    kind : {"threshold", "knn", "classifier"}
    threshold_ : float
        A pair is a duplicate when its ``pair_score`` reaches it (1.0 for the kNN rule, whose
        score is 1 for mutual neighbours and 0 otherwise).
    input_weight_ : float or None
        The input-cosine weight of a threshold rule's similarity (None for the others).

    Raises
    ------
    ValueError
        When ``matcher`` is not one of the three duplicate rules.
    """

    def __init__(self, matcher, rule=None):
        from ._matchers import PairwiseKNNMatcher, ThresholdMatcher
        from .pair_classifier import PairClassifierMatcher, PairScoreRegressor

        self.matcher = matcher
        self.rule = rule
        if isinstance(matcher, PairScoreRegressor):
            self.kind = "regression"
        elif isinstance(matcher, PairClassifierMatcher):
            self.kind = "classifier"
        elif isinstance(matcher, PairwiseKNNMatcher):
            self.kind = "knn"
        elif isinstance(matcher, ThresholdMatcher):
            self.kind = "threshold"
        else:
            raise ValueError(f"the model's matcher is a {type(matcher).__name__}, not a duplicate rule that "
                             "'learnsim match' knows")
        self.name = getattr(rule, "matcher", None) or ("cosine" if getattr(matcher, "input_weight_", None) == 1.0
                                                      else self.kind)
        #: True for a model fitted on graded pairs: the rule predicts a score, it decides nothing
        self.graded = self.kind == "regression"
        if self.graded and self.name not in ("cosine", "regression", "regression+film"):
            self.name = "regression"
        self.threshold_ = (None if self.graded else 1.0 if self.kind == "knn" else float(matcher.threshold_))
        self.input_weight_ = getattr(matcher, "input_weight_", None)
        self._texts = None
        if self.kind in ("threshold", "classifier"):
            _say_uncentred(matcher)

    def never_duplicate(self):
        """Why the rule calls no pair a duplicate, or None when it can. A threshold (or a pair
        classifier's cut) of +inf is best_threshold's answer when calling every pair not a
        duplicate did best on the pairs it was fitted on; the fit warns of it, and a match with
        such a model answers 0 for every pair but exact copies, which is said where it is used."""
        if self.graded or self.kind == "knn" or not np.isposinf(self.threshold_):
            return None
        return ("the model's duplicate rule calls no pair a duplicate: its threshold is infinite, as on the pairs it "
                "was fitted on no threshold did better than calling every pair not a duplicate (labels that "
                "contradict each other, or similarities that tie); every pair but an exact copy is answered 0; "
                "refit on consistent labelled pairs")

    def _input(self, X, texts):
        if self.kind not in ("classifier", "regression"):
            return X
        texts = self._texts if texts is None else texts
        if texts is None or len(texts) != X.shape[0]:
            raise ValueError("the model's duplicate rule is a pair classifier: it needs the texts of the pairs")
        return list(texts)

    def pair_score(self, pairs, X, texts=None):
        """The rule's score of each pair: the (mixed) cosine, the classifier's decision value, or
        1/0 for mutual neighbours."""
        if self.kind == "knn":
            return self._knn(pairs, X, texts, "predict", 1.0).astype(np.float64)
        return self.matcher.pair_score(pairs, X=self._input(X, texts))

    def predict(self, pairs, X, texts=None):
        """1 for the pairs the rule calls duplicates, else 0; 1 for every exact copy
        (:meth:`copies`)."""
        self._decides()
        if self.kind == "knn":
            decision = self._knn(pairs, X, texts, "predict", 1)
        else:
            decision = np.asarray(self.matcher.predict(pairs, X=self._input(X, texts))).copy()
        decision[self.copies(pairs, X, texts)] = 1
        return decision

    def predict_proba(self, pairs, X, texts=None):
        """(n_pairs, 2) probabilities of [different, duplicate]; [0, 1] for every exact copy
        (:meth:`copies`)."""
        self._decides()
        if self.kind == "knn":
            proba = self._knn(pairs, X, texts, "predict_proba", (0.0, 1.0)).astype(np.float64)
        else:
            proba = np.array(self.matcher.predict_proba(pairs, X=self._input(X, texts)), dtype=np.float64)
        proba[self.copies(pairs, X, texts)] = (0.0, 1.0)
        return proba

    def _knn(self, pairs, X, texts, method, copy_value):
        """The kNN rule's ``method`` over the distinct texts of the collection: a text given
        twice (the copy a pair of two identical texts holds) is one neighbour, not two. Counted
        twice, the copy stood before every other neighbour of its text, so that adding the pair
        (t, t) to a call turned (t, u) from a duplicate into none at k = 1, and the check that
        the collection holds more than k texts counted it as one more text. An exact copy's row
        is ``copy_value`` (mutual nearest neighbours). Without the texts, the rows as given."""
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        texts = self._texts if texts is None else texts
        if texts is None or len(texts) != X.shape[0]:
            return np.asarray(getattr(self.matcher, method)(pairs, X=X)).copy()
        first, keep = {}, []
        where = np.empty(len(texts), dtype=np.int64)
        for i, t in enumerate(texts):
            where[i] = first.setdefault(t, len(keep))
            if where[i] == len(keep):
                keep.append(i)
        pairs = where[pairs]
        same = pairs[:, 0] == pairs[:, 1]
        out = None
        if (~same).any():
            distinct = [X[i] for i in keep] if isinstance(X, list) else X[np.asarray(keep)]
            rows = np.asarray(getattr(self.matcher, method)(pairs[~same], X=distinct))
            out = np.empty((pairs.shape[0],) + rows.shape[1:], dtype=rows.dtype)
            out[~same] = rows
        if out is None:
            out = np.empty((pairs.shape[0],) + np.shape(copy_value), dtype=np.float64)
        out[same] = copy_value
        return out

    def decide(self, pairs, X, texts=None):
        """(score, probability of a duplicate, decision) of each pair, as :meth:`pair_score`,
        :meth:`predict_proba` and :meth:`predict` give them; a pair classifier's features are
        built once for the three (each of those builds them: a text's words vectorised and its
        character n-grams hashed three times a match). A graded rule: (score, None, None)."""
        if self.graded:
            return self.pair_score(pairs, X, texts), None, None
        if self.kind != "classifier":
            return (self.pair_score(pairs, X, texts), self.predict_proba(pairs, X, texts)[:, 1],
                    self.predict(pairs, X, texts).astype(bool))
        m = self.matcher
        score = np.asarray(m.decision_function(pairs, X=self._input(X, texts)), dtype=np.float64)
        proba, decision = m.probability_of(score), score >= m.threshold_
        copies = self.copies(pairs, X, texts)
        proba[copies], decision[copies] = 1.0, True
        return score, proba, decision

    def copies(self, pairs, X, texts=None):
        """Which pairs are exact copies: the same text, character for character, holding more
        than white space. Such a pair is a duplicate with probability 1 whatever the rule would
        say: a pair classifier extrapolates on short texts (Quora's rated ``refund policy``
        against itself 0.605 and against ``refund refund policy policy refund`` 0.628, so that
        a match of one text put the repetition before the copy), and a copy is the one
        duplicate that needs no model. The pair's ``pair_score`` stays the rule's. Without the
        texts (a rule on vectors given vectors alone) no pair is taken for a copy."""
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        texts = self._texts if texts is None else texts
        out = np.zeros(pairs.shape[0], dtype=bool)
        if texts is None or len(texts) != X.shape[0]:
            return out
        for row, (a, b) in enumerate(pairs.tolist()):
            out[row] = (a == b or texts[a] == texts[b]) and bool(str(texts[a]).strip())
        return out

    def _decides(self):
        if self.graded:
            raise ValueError("the model was fitted on graded pairs: it predicts a similarity score per pair "
                             "(pair_score), not a duplicate decision")

    def title(self):
        """The rule's name with its cut: "pair classifier, probability >= 0.52", "input cosine >=
        0.4717", "threshold on the mixed cosine (w = 0.6) >= 0.4100", "pair regression, predicted
        score"."""
        from ._rule import MatchRule

        words = MatchRule(self.name, graded=self.graded).describe()
        if self.graded:
            return f"{words}, predicted score"
        if self.kind == "classifier":
            from ._matchers import _sigmoid

            m = self.matcher
            cut = float(_sigmoid(np.array([m.slope_ * self.threshold_ + m.calibration_intercept_]))[0]) \
                if np.isfinite(self.threshold_) else 1.0
            return f"{words}, probability >= {cut:.2f}"
        if self.kind == "knn":
            return f"{words}, mutual {self.matcher.k_}-nearest neighbours"
        if self.never_duplicate():
            return f"{words}, no pair a duplicate (its threshold is infinite)"
        if self.name == "cosine" or self.input_weight_ == 1.0:
            return f"input cosine >= {self.threshold_:.4f}"
        return f"{words} (w = {self.input_weight_:g}) >= {self.threshold_:.4f}"

    def describe(self):
        """The rule in words, for the human output."""
        if self.graded:
            return "the pair regression's predicted score" if self.name != "cosine" else (
                "the input cosine mapped to the scores' scale (the regression did not beat it)")
        if self.kind == "classifier":
            return "the pair classifier's decision; probability calibrated out of fold"
        if self.kind == "knn":
            return f"mutual {self.matcher.k_}-nearest neighbours in FILM's space among the texts given"
        if self.never_duplicate():      # not 'similarity >= inf'
            return "no pair a duplicate (the similarity's threshold is infinite); probability calibrated on the " \
                   "held-out pairs"
        return (f"similarity >= {self.threshold_:.4f}; probability calibrated on the held-out pairs")

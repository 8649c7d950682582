"""Search's re-ranker applied from its saved arrays with numpy, as the query plan
(:mod:`learnsim.index._query`) applies the first stage: a re-ranked search then loads neither the
pipeline nor scikit-learn, whose import was most of a re-ranked ``learnsim search`` (3.2 s
against 0.4 s on the Quora sample).

The re-ranker (:class:`learnsim.matching.Reranker`) is a logistic regression on features of a
(query, hit) pair (:mod:`learnsim.matching.pair_classifier`): the word tf.idf cosine, the
character n-gram cosine, word overlap and length, and which words the two share or not. Here each
is computed per pair from the texts' word vectors (the query plan's vectoriser code, with the
re-ranker's own vocabulary and idf) and hashed character n-grams
(:mod:`learnsim.text._char_hash`), of the text read as the re-ranker's model reads it: in NFKC
and lowercased (``char_fold`` true; case-folded where ``char_casefold`` is true too), or lowercased alone (a model fitted before character
folding; ``char_fold`` false, or absent from a plan written before). The index writes these
files into its plan directory only when, on texts of the collection, they give the pipeline's
re-ranker's probabilities to :data:`RERANK_TOLERANCE`; otherwise, and for the blocks computed
here from no saved arrays (an embedding, an LSI), a search loads the pipeline as before.

Files (beside the query plan's, each checksummed in the manifest with them):
``rerank.json`` (the settings and numbers), ``rerank.terms.json`` (the re-ranker's vocabulary)
and ``rerank.<name>.npy`` for ``coef``, ``feature_mean``, ``feature_scale``, ``char_idf`` and
``idf``.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np

from ..matching._rerank import decision_explanation, dense_feature_names
from ..text._char_hash import char_ngram_counts
from ._query import QueryPlan
from .._utils.files import save_npy

__all__ = ["RerankPlan", "rerank_plan_state", "write_rerank_plan", "RERANK_TOLERANCE"]

#: The plan's probabilities must equal the pipeline's re-ranker's to this (absolute).
RERANK_TOLERANCE = 1e-7
_BLOCKS = ("input_cosine", "char_cosine", "overlap", "length", "word_pairs")
_ARRAYS = ("coef", "feature_mean", "feature_scale", "char_idf", "idf")
_META = "rerank.json"
_TERMS = "rerank.terms.json"


def _unit(vals):
    norm = math.sqrt(float(np.dot(vals, vals)))
    return vals / norm if norm > 0 else vals


def rerank_plan_state(reranker):
    """(meta, arrays, terms) of a re-ranker, or None where its features need more than the
    arrays this module reads (an embedding or an LSI block)."""
    from ._plan import _vectorizer_meta

    m = reranker.model
    feats = tuple(m.features_)
    if not set(feats) <= set(_BLOCKS) or getattr(m.vectorizer_, "components_", None) is not None:
        return None
    vmeta, varrays = _vectorizer_meta(m.vectorizer_)
    meta = dict(vmeta, features=list(feats), char_ngram_range=[int(n) for n in m.char_ngram_range],
                char_features=int(m.char_features), char_fold=bool(getattr(m, "char_fold_", False)),
                char_casefold=bool(getattr(m, "char_casefold_", False)),
                intercept=float(m.intercept_), slope=float(m.slope_),
                calibration_intercept=float(m.calibration_intercept_), n_candidates=int(reranker.n_candidates),
                C=float(m.C_))
    arrays = {"coef": np.asarray(m.coef_, dtype=np.float64), "feature_mean": np.asarray(m.feature_mean_, dtype=np.float64),
              "feature_scale": np.asarray(m.feature_scale_, dtype=np.float64)}
    if m.char_idf_ is not None:
        arrays["char_idf"] = np.asarray(m.char_idf_, dtype=np.float64)
    if "idf" in varrays:
        arrays["idf"] = varrays["idf"]
    meta["arrays"] = sorted(arrays)
    return meta, arrays, [str(t) for t in m.vectorizer_.get_feature_names_out()]


def write_rerank_plan(reranker, directory, check_texts):
    """Write the re-ranker's plan into ``directory`` (the query plan's) when it can be written and
    gives the re-ranker's probabilities on pairs of ``check_texts``; returns whether it did."""
    state = rerank_plan_state(reranker)
    if state is None:
        return False
    try:
        plan = RerankPlan(*state)
    except (ValueError, KeyError, TypeError):
        return False
    texts = [t for t in check_texts if isinstance(t, str)]
    for i, query in enumerate(texts[:20]):
        others = texts[:i] + texts[i + 1:]
        if others and not np.allclose(plan.probabilities(query, others), reranker.probabilities(query, others),
                                      rtol=0.0, atol=RERANK_TOLERANCE):
            return False
    meta, arrays, terms = state
    directory = Path(directory)
    for name, arr in arrays.items():
        save_npy(directory / f"rerank.{name}.npy", arr)
    for name, value in ((_TERMS, terms), (_META, meta)):
        with open(directory / name, "w", encoding="utf-8") as fh:
            json.dump(value, fh, ensure_ascii=False)
            fh.flush()
            os.fsync(fh.fileno())
    return True


class RerankPlan:
    """The re-ranker of an index, from its saved arrays: ``rerank`` and ``explain`` as
    :class:`learnsim.matching.Reranker` gives them (module notes)."""

    def __init__(self, meta, arrays, terms):
        feats = meta["features"]
        if not isinstance(feats, list) or not feats or not set(feats) <= set(_BLOCKS) or len(set(feats)) != len(feats):
            raise ValueError(f"the re-ranker's features {feats!r} are not ones the plan computes")
        self.features = tuple(feats)
        lo, hi = meta["char_ngram_range"]
        if not (isinstance(lo, int) and isinstance(hi, int) and 1 <= lo <= hi <= 32):
            raise ValueError(f"char_ngram_range {meta['char_ngram_range']!r} is not a range of n-gram lengths")
        self.char_range = (lo, hi)
        bits = meta["char_features"]
        if not isinstance(bits, int) or not 1 <= bits <= 24:
            raise ValueError(f"char_features {bits!r} is not a number of hash bits (1 to 24)")
        self.n_char_columns = 1 << bits
        # a plan written before character folding: its model lowercased alone
        self.char_fold = meta.get("char_fold", False)
        if not isinstance(self.char_fold, bool):
            raise ValueError(f"char_fold {self.char_fold!r} is not true or false")
        # a plan written before the n-grams were case-folded: its model lowercased
        self.char_casefold = meta.get("char_casefold", False)
        if not isinstance(self.char_casefold, bool):
            raise ValueError(f"char_casefold {self.char_casefold!r} is not true or false")
        self.n_candidates = meta["n_candidates"]
        if isinstance(self.n_candidates, bool) or not isinstance(self.n_candidates, int) or self.n_candidates < 1:
            raise ValueError(f"n_candidates {self.n_candidates!r} is not a positive integer")
        self.numbers = {}
        for key in ("intercept", "slope", "calibration_intercept", "C"):
            v = meta[key]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"{key} {v!r} is not a finite number")
            self.numbers[key] = float(v)
        self.words = QueryPlan(dict(meta, model={"op": "words"}), {"idf": arrays["idf"]} if "idf" in arrays else {},
                               terms)
        self.names = dense_feature_names(self.features)
        n_dense, n_terms = len(self.names), len(terms)
        n_coef = n_dense + (2 * n_terms if "word_pairs" in self.features else 0)
        shapes = {"coef": (n_coef,), "feature_mean": (n_dense,), "feature_scale": (n_dense,),
                  "char_idf": (self.n_char_columns,)}
        for name, shape in shapes.items():
            if name == "char_idf" and "char_cosine" not in self.features:
                continue
            a = arrays.get(name)
            if a is None or a.shape != shape or a.dtype.kind != "f" or not np.isfinite(a).all():
                raise ValueError(f"array {name!r} must be finite floats of shape {shape}")
        if (arrays["feature_scale"] <= 0).any():
            raise ValueError("array 'feature_scale' must be positive")
        self.coef, self.mean, self.scale = arrays["coef"], arrays["feature_mean"], arrays["feature_scale"]
        self.char_idf = arrays.get("char_idf")
        self.n_dense, self.n_terms = n_dense, n_terms

    @classmethod
    def load(cls, directory, checksums=None, required=False):
        """The plan in ``directory``, or None where the index wrote none there; each file checked
        against ``checksums`` (the manifest's) as the query plan's are."""
        from ._segments import IndexDamagedError, load_json, load_npy

        directory = Path(directory)
        checksums = checksums or {}
        if _META not in checksums and (required or not (directory / _META).exists()):
            return None
        meta = load_json(directory / _META, checksums.get(_META))
        terms = load_json(directory / _TERMS, checksums.get(_TERMS))
        if not isinstance(meta, dict) or not isinstance(meta.get("arrays"), list) or not isinstance(terms, list):
            raise IndexDamagedError(directory / _META, "it is not a re-ranker's plan")
        arrays = {}
        for name in meta["arrays"]:
            if name not in _ARRAYS:
                raise IndexDamagedError(directory / _META, f"it names an array {name!r} the re-ranker has not")
            file = f"rerank.{name}.npy"
            if required and file not in checksums:
                raise IndexDamagedError(directory / file, "the manifest records no sha256 of it")
            arrays[name] = load_npy(directory / file, checksums.get(file))
        try:
            return cls(meta, arrays, terms)
        except (ValueError, KeyError, TypeError) as exc:
            raise IndexDamagedError(directory / _META, f"it does not describe a re-ranker ({exc})") from None

    def __repr__(self):
        return f"RerankPlan(n_candidates={self.n_candidates}, C={self.numbers['C']:g})"

    # ------------------------------------------------------------------ features
    def _text(self, text, cache):
        ids, vals = self.words.word_vector(text)
        chars = None
        if self.char_idf is not None:
            counts = char_ngram_counts(text, *self.char_range, self.n_char_columns, cache, fold=self.char_fold,
                                       casefold=self.char_casefold)
            cols = np.fromiter(sorted(counts), dtype=np.int64, count=len(counts))
            n = np.fromiter((counts[c] for c in cols), dtype=np.float64, count=cols.size)
            chars = (cols, _unit((1.0 + np.log(n)) * self.char_idf[cols]))
        return ids, vals, chars, float(len(text))

    def _pair(self, q, t):
        """(dense features, shared word ids, word ids in one text only) of a pair of texts."""
        qi, qv, qc, ql = q
        ti, tv, tc, tl = t
        shared, at_q, at_t = np.intersect1d(qi, ti, assume_unique=True, return_indices=True)
        f = self.features
        dense = []
        if "input_cosine" in f:
            dense.append(_cosine(qv, tv, float(np.dot(qv[at_q], tv[at_t]))))
        if "char_cosine" in f:
            _, cq, ct = np.intersect1d(qc[0], tc[0], assume_unique=True, return_indices=True)
            dense.append(_cosine(qc[1], tc[1], float(np.dot(qc[1][cq], tc[1][ct]))))
        na, nb, s = float(qi.size), float(ti.size), float(shared.size)
        if "overlap" in f:
            small, large, union = min(na, nb), max(na, nb), na + nb - s
            soft = float(np.minimum(qv[at_q], tv[at_t]).sum())
            dense += [s / union if union > 0 else 0.0, s / small if small > 0 else 0.0,
                      s / large if large > 0 else 0.0, soft]
        if "length" in f:
            wl, cl = max(na, nb, 1.0), max(ql, tl, 1.0)
            dense += [abs(na - nb) / wl, abs(ql - tl) / cl, math.log1p(min(na, nb)), math.log1p(max(na, nb))]
        one = np.setxor1d(qi, ti, assume_unique=True) if "word_pairs" in f else None
        return np.asarray(dense, dtype=np.float64), shared, one

    def _parts(self, query, texts):
        """(standardised dense features x their weights, word-pair columns and weights) per text."""
        cache = {}
        q = self._text(query, cache)
        out = []
        for text in texts:
            dense, shared, one = self._pair(q, self._text(text, cache))
            parts = (dense - self.mean) / self.scale * self.coef[:self.n_dense]
            cols = np.zeros(0, dtype=np.int64)
            if one is not None:
                cols = np.concatenate([self.n_dense + shared, self.n_dense + self.n_terms + one])
            out.append((parts, cols))
        return out

    # ------------------------------------------------------------------ use
    def decisions(self, query, texts):
        return np.array([parts.sum() + self.coef[cols].sum() + self.numbers["intercept"]
                         for parts, cols in self._parts(query, texts)], dtype=np.float64)

    def probabilities(self, query, texts):
        """P(duplicate) of ``query`` with each of ``texts``."""
        if not texts:
            return np.zeros(0)
        t = self.numbers["slope"] * self.decisions(query, list(texts)) + self.numbers["calibration_intercept"]
        # the logistic without overflow, as the pair model's Platt scaling computes it
        e = np.exp(-np.abs(t))
        return np.where(t >= 0, 1.0 / (1.0 + e), e / (1.0 + e))

    def rerank(self, query, texts):
        """(order, probabilities), as :meth:`learnsim.matching.Reranker.rerank`."""
        proba = self.probabilities(query, list(texts))
        return np.argsort(-proba, kind="stable"), proba

    def explain(self, query, text, n_top=10):
        """As :meth:`learnsim.matching.Reranker.explain`."""
        (parts, cols), = self._parts(query, [text])
        words = [(int(c) - self.n_dense, float(self.coef[c])) for c in np.sort(cols) if self.coef[c] != 0.0]
        return decision_explanation(self.names, parts, words, self.words.terms, self.numbers["intercept"],
                                    self.numbers["slope"], self.numbers["calibration_intercept"], n_top)


def _cosine(a, b, dot):
    denom = math.sqrt(float(np.dot(a, a))) * math.sqrt(float(np.dot(b, b)))
    return dot / denom if denom > 0 else 0.0

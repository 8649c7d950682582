"""Write the query plan of a pipeline (:mod:`learnsim.index._query`) and check it against the
pipeline's own query rows."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from .._utils.files import save_npy
from ._query import QueryPlan, QueryRows

__all__ = ["build_plan", "plan_matches"]

# The plan must give the pipeline's query rows to this fraction of their largest value.
PLAN_TOLERANCE = 1e-6


def _vectorizer_meta(vec):
    from ..text import LATER_READINGS, Tokenizer, analysis_of

    tok = vec._make_tokenizer() if hasattr(vec, "_make_tokenizer") else None
    stop = None
    if isinstance(tok, Tokenizer) and tok._stop_set is not None:
        stop = sorted(tok._stop_set)
    meta = {"tokenizer": {"lowercase": bool(vec.lowercase), "token_pattern": vec.token_pattern,
                          "stop_words": stop, "stem": vec.stem, "ngram_range": [int(n) for n in vec.ngram_range],
                          **analysis_of(vec),
                          # written only where set: a plan without it is read by a learnsim that
                          # does not know it, as it was before
                          **{name: True for name in LATER_READINGS if getattr(vec, name, False)}},
            "weighting": {"kind": vec.weighting, "sublinear_tf": bool(vec.sublinear_tf), "norm": vec.norm,
                          "k1": float(vec.k1), "b": float(vec.b), "avgdl": float(vec.avgdl_),
                          "dtype": np.dtype(vec.dtype).name}}
    if getattr(vec, "dictionary_", None) is not None:
        # beside the tokenizer's keywords, which a learnsim that does not know one refuses
        meta["dictionary"] = vec.dictionary_
    arrays = {}
    if vec.idf_ is not None:
        arrays["idf"] = np.asarray(vec.idf_, dtype=np.float64)
    if vec.components_ is not None:
        arrays["components"] = np.ascontiguousarray(vec.components_)
    return meta, arrays


def _model_meta(scorer, statistics):
    """(meta, arrays) of the model's query map, or None when the plan cannot express it."""
    from ..film import FILM
    from ..linklearn import LinkLearn
    from ..mcd import MinimumClusterDistortion
    from ..relative import RelativeComparisonMetric
    from ..linklearn import LearnedBM25

    metric = scorer.metric
    if getattr(scorer, "lexical_kind", None) == "bm25":
        if scorer.lexical_weight != 1.0 or "vocabulary_df" not in statistics:
            # a BM25 mix (issue 42): its query row has the pipeline's dense part and, with FILM
            # over term vectors, two vocabularies (BM25's counts and the map's inputs): the
            # pipeline serves it
            return None
        # BM25 alone: the query's words over the collection's vocabulary, each lambda / Z(q)
        from ..scorer import BM25_K1

        idf, _ = scorer._bm25_idf(statistics, int(np.asarray(statistics["vocabulary_df"]).size))
        return {"op": "bm25_normalised", "weight": 1.0, "k1": BM25_K1}, {"bm25_idf": np.asarray(idf, np.float64)}
    if isinstance(metric, LearnedBM25):
        return {"op": "power", "power": float(metric._fitted()["query_exponent"])}, {}
    if isinstance(metric, LinkLearn):
        if metric._fell_back():
            return {"op": "tfidf_cosine"}, {"idf": np.asarray(statistics["idf"], dtype=np.float64)}
        return {"op": "binary"}, {}
    if isinstance(metric, FILM):
        return ({"op": "cosine", "input_weight": scorer.input_weight},
                {"map": np.ascontiguousarray(metric._components, dtype=np.float64)})
    if isinstance(metric, MinimumClusterDistortion):
        active = np.asarray(metric.active_features_, dtype=np.int64)
        position = np.full(metric.n_features_in_, -1, dtype=np.int64)
        position[active] = np.arange(active.size)
        return ({"op": "mcd", "beta": float(metric.residual_weight_)},
                {"factor": np.asarray(metric.factor_, dtype=np.float64), "active_position": position,
                 "weights": np.asarray(metric.weights_, dtype=np.float64)})
    if isinstance(metric, RelativeComparisonMetric) and metric.kernel is None:
        # normalize: the query row sqrt(w) x is divided by its norm (a plan without the flag: False)
        return ({"op": "diagonal", "normalize": bool(getattr(metric, "normalize", False))},
                {"weights": np.asarray(metric.weights_, dtype=np.float64)})
    return None


def plan_matches(plan_rows, rows):
    """Whether two QueryRows agree to PLAN_TOLERANCE of their scale."""
    def close(a, b):
        scale = max(1.0, float(np.abs(b).max(initial=0.0)))
        return a.shape == b.shape and float(np.abs(a - b).max(initial=0.0)) <= PLAN_TOLERANCE * scale

    if len(plan_rows) != len(rows):
        return False
    for part in ("dense", "sq"):
        a, b = getattr(plan_rows, part), getattr(rows, part)
        if (a is None) != (b is None) or (a is not None and not close(np.asarray(a), np.asarray(b))):
            return False
    n_features = 1 + max([int(s[0].max(initial=-1)) for s in plan_rows.sparse + rows.sparse if s is not None] or [0])
    for a, b in zip(plan_rows.sparse, rows.sparse):
        if (a is None) != (b is None):
            return False
        if a is None:
            continue
        va, vb = np.zeros(n_features), np.zeros(n_features)
        np.add.at(va, a[0], a[1])
        np.add.at(vb, b[0], b[1])
        if not close(va, vb):
            return False
    return True


def build_plan(pipeline, statistics, directory, check_texts):
    """Write the plan into ``directory`` and check it on ``check_texts``; returns whether the
    index can use it (False: the pipeline is not expressible, or the check failed).

    Statistics that hold the collection's vocabulary (issue 32) give the plan that vocabulary,
    with the vectoriser's tokenizer and weighting; a FILM mixing its input cosine with its learned
    one also gets the training vocabulary and weighting its map is over (``model["learned"]``)."""
    scorer = pipeline.scorer
    # BM25 alone (a search rule's lexical weight 1, issue 42) has no dense part on the query side
    bm25_alone = getattr(scorer, "lexical_kind", None) == "bm25" and scorer.lexical_weight == 1.0
    if scorer.dense_input and not bm25_alone:
        return False        # a sentence encoder's query side is the model itself: no numpy-only plan
    vec = pipeline.vectorizer
    lexical = pipeline.lexical_vectorizer(statistics)
    learned = None
    if lexical is not None:
        if scorer.kind == "cosine" and scorer.input_weight != 1.0 and not bm25_alone:
            lmeta, larrays = _vectorizer_meta(vec)
            learned = ({"weighting": lmeta["weighting"], "terms": [str(t) for t in vec.terms_]},
                       {"learned_" + name: arr for name, arr in larrays.items()})
        vec = lexical
    model = _model_meta(pipeline.scorer, statistics)
    if model is None or not hasattr(vec, "vocabulary_"):
        return False
    vmeta, arrays = _vectorizer_meta(vec)
    mmeta, marrays = model
    if learned is not None:
        mmeta = dict(mmeta, learned=learned[0])
        marrays = dict(marrays, **learned[1])
    overlap = set(arrays) & set(marrays)
    if overlap:
        raise AssertionError(f"plan arrays named twice: {overlap}")
    arrays.update(marrays)
    meta = dict(vmeta, model=mmeta, arrays=sorted(arrays))
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for name, arr in arrays.items():
        save_npy(directory / f"{name}.npy", arr)
    with open(directory / "terms.json", "w", encoding="utf-8") as fh:
        json.dump([str(t) for t in vec.terms_], fh, ensure_ascii=False)
        fh.flush()
        os.fsync(fh.fileno())
    with open(directory / "plan.json", "w", encoding="utf-8") as fh:
        json.dump(meta, fh)
        fh.flush()
        os.fsync(fh.fileno())
    texts = list(check_texts)
    if not texts:
        return True
    plan = QueryPlan.load(directory)
    expected = QueryRows.from_rows(pipeline.query_rows(texts, statistics))
    return plan_matches(plan.rows(texts), expected)

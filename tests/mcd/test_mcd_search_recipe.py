"""mcd fitted on pairs is checked as search is used (issue 42): its groups of duplicates are the
clusters it learns from, so on judgements that name a few documents many times it learns those
documents; the check on held-out queries and documents must not keep that."""
import warnings

import numpy as np

import learnsim.fitting
from learnsim.baseline import BaselineGain, LexicalBaselines

from retrieval_fakes import ndcg, nickname_collection


def test_remembering_the_judged_documents_does_not_pass_the_cold_part():
    docs, train, warm, cold = nickname_collection(seed=1)
    rows = [(q, docs[d], 1) for q, d in train]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = learnsim.fitting.fit(pairs=rows, corpus=docs, method="mcd", n_basis=16)
    report = BaselineGain.from_dict(result.report["search_baseline_gain"])
    assert report.measure == "nDCG@10" and report.cold is not None
    assert not (report.status == "learned" and report.cold["ci_high"] < 0)
    lex = LexicalBaselines(docs)
    for part in (warm, cold):
        bm25 = ndcg(lex.scores("bm25", lex.query_counts([q for q, _ in part])), part, docs)
        assert ndcg(result.pipeline, part, docs) >= 0.97 * bm25
    if report.fell_back:
        assert result.report["model"] == report.detail["strongest_baseline"]
        assert result.pipeline.scoring in ("BM25", "tf.idf cosine")

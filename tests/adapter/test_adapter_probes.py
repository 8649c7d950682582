"""The adapter's search check scores plain queries too (learnsim.baseline._probe): a few words of
documents no training pair names, encoded as the fit's queries are; nothing shown below the
strongest baseline on them is kept."""
import warnings

import learnsim.fitting
from learnsim.baseline import BaselineGain, LexicalBaselines

from encoder_fakes import HashedWordEncoder
from retrieval_fakes import ndcg, nickname_collection


def test_the_adapter_is_checked_on_plain_queries_from_unjudged_documents():
    docs, train, warm, cold = nickname_collection(seed=0)
    rows = [(q, docs[d], 1) for q, d in train]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = learnsim.fitting.fit(pairs=rows, corpus=docs, method="adapter", encoder=HashedWordEncoder())
    report = BaselineGain.from_dict(result.report["baseline_gain"])
    assert report.detail["probe_n_units"] >= 30
    assert not (report.status == "learned" and report.detail["probe_ci_high"] < 0)
    assert "plain queries (" in report.summary()
    lex = LexicalBaselines(docs)
    bm25 = ndcg(lex.scores("bm25", lex.query_counts([q for q, _ in cold])), cold, docs)
    # plain queries about documents no pair judged: not far below BM25 whatever was kept
    assert ndcg(result.pipeline, cold, docs) >= 0.95 * bm25

"""A tie in the held-out check's rankings counts its documents' mean gain at each of its places
(the DCG expected over the orders it could take), not the gain of the order the documents came
in: a rule that scores documents alike cannot pass the check on the corpus's order."""
import warnings

import numpy as np
import pytest

from learnsim.baseline import SearchBaselines, check_search, ndcg_at_k, split_search
from learnsim.exceptions import BaselineWarning

WORDS = [f"w{i}" for i in range(80)]


def _judged_first(n_docs=150, n_queries=120, n_judged=10, seed=0):
    """A corpus that lists its judged documents first (as one built from judgements often does):
    every query's relevant document is one of the first ``n_judged``; each query is 2 words of it
    and 3 random words."""
    rng = np.random.default_rng(seed)
    docs = [" ".join(rng.choice(WORDS, 20)) for _ in range(n_docs)]
    targets = rng.integers(0, n_judged, n_queries)
    queries = [" ".join(list(rng.choice(docs[t].split(), 2, replace=False)) + list(rng.choice(WORDS, 3)))
               for t in targets]
    pairs = np.array([(n_docs + i, int(t)) for i, t in enumerate(targets)])
    return docs + queries, pairs, n_docs


def test_a_rule_that_scores_every_document_alike_does_not_pass_on_the_corpus_order():
    texts, pairs, n_docs = _judged_first()
    split = split_search(pairs, np.ones(len(pairs)), len(texts), documents=np.arange(n_docs), random_state=0)

    def flat(q):     # a learned metric collapsed to one value: it knows nothing of the query
        return np.zeros((len(q), n_docs))
    pool = SearchBaselines(texts, np.arange(n_docs)).pool(split, learned={"flat": flat})
    with pytest.warns(BaselineWarning):
        check = check_search(pool, [{"flat": 1.0}], owner="test")
    assert check.fell_back, check.report.summary()
    # its measure is what a random order of the pool gives: about 10 relevant places in the pool's
    # width, not the first columns' (which are the judged documents)
    flat_ndcg = np.nanmean(pool.measure(pool.mix({"flat": 1.0}))["all"])
    assert flat_ndcg < 0.5 * np.nanmean(pool.measure(pool.mix({"bm25": 1.0}))["all"])


def test_ndcg_at_k_counts_a_tie_at_its_mean_gain():
    # two documents tied, the relevant one first in column order: half the time it is first
    assert ndcg_at_k(np.array([[1.0, 1.0]]), np.array([[1, 2]]), [{1: 1}])[0] == pytest.approx(
        (1 + 1 / np.log2(3)) / 2)
    # the same whichever column it is in
    assert ndcg_at_k(np.array([[1.0, 1.0]]), np.array([[2, 1]]), [{1: 1}])[0] == pytest.approx(
        (1 + 1 / np.log2(3)) / 2)
    # no tie: as before (trec_eval's ndcg_cut)
    assert ndcg_at_k(np.array([[0.9, 0.5, 0.1]]), np.array([[7, 8, 9]]), [{8: 1.0}])[0] == pytest.approx(
        1 / np.log2(3))
    # a tie across the cut at 10: 20 tied documents, 2 relevant, 10 places: 10/20 of their gain expected
    S = np.zeros((1, 20))
    got = ndcg_at_k(S, np.arange(20)[None], [{0: 1, 1: 1}])[0]
    disc = 1 / np.log2(np.arange(2, 12))
    assert got == pytest.approx((0.1 * disc.sum()) / (disc[0] + disc[1]))
    # documents never ranked (-inf) gain nothing, tied or not
    assert ndcg_at_k(np.array([[-np.inf, -np.inf, 0.5]]), np.array([[1, 2, 3]]), [{1: 1}])[0] == 0.0

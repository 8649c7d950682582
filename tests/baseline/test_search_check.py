"""learnsim.baseline's search check: the strongest baseline over the whole collection, and a
learned rule kept only when it beats it overall and holds on the cold part (issue 42)."""
import warnings

import numpy as np
import pytest

from learnsim.baseline import (LexicalBaselines, SearchBaselines, bm25_query_norms, check_search, ndcg_at_k,
                               split_search)
from learnsim.exceptions import BaselineWarning

WORDS = [f"w{i}" for i in range(80)]


def _collection(n_docs=150, n_queries=120, seed=0):
    """Documents of 20 words of a small vocabulary; each query is 2 words of one document (its
    relevant one) and 3 random words, and queries share documents, so that judged documents recur
    across queries. Lexical search finds the document often, not always."""
    rng = np.random.default_rng(seed)
    docs = [" ".join(rng.choice(WORDS, 20)) for _ in range(n_docs)]
    targets = rng.integers(0, n_docs // 2, n_queries)
    queries = [" ".join(list(rng.choice(docs[t].split(), 2, replace=False)) + list(rng.choice(WORDS, 3)))
               for t in targets]
    texts = docs + queries
    pairs = np.array([(n_docs + i, int(t)) for i, t in enumerate(targets)])
    return texts, pairs, n_docs


def test_lexical_baselines_are_bm25_and_the_tfidf_cosine_of_the_collection():
    from learnsim.text.bm25 import BM25

    texts, _, n_docs = _collection()
    lex = LexicalBaselines(texts[:n_docs])
    Q = lex.query_counts(texts[n_docs:n_docs + 5])
    expected = BM25(k1=1.5, b=0.6, dtype=np.float64).fit(lex.counts).score(Q)
    assert np.allclose(lex.scores("bm25", Q), expected)
    # normalised BM25 keeps BM25's ranking and lies in [0, 1)
    N = lex.normalised_bm25(Q)
    assert (N >= 0).all() and (N < 1).all()
    assert (np.argsort(-N, axis=1, kind="stable") == np.argsort(-expected, axis=1, kind="stable")).all()
    # the cosine of a document with itself is 1
    D = lex.query_counts(texts[:3])
    assert np.allclose(lex.scores("cosine", D)[np.arange(3), np.arange(3)], 1.0)


def test_bm25_query_norm_is_the_largest_score_a_query_reaches():
    texts, _, n_docs = _collection(seed=2)
    lex = LexicalBaselines(texts[:n_docs])
    Q = lex.query_counts(texts[n_docs:n_docs + 20])
    z = bm25_query_norms(Q, lex.bm25.idf_)
    assert (lex.scores("bm25", Q).max(axis=1) <= z + 1e-12).all()


def test_ndcg_at_k_agrees_with_trec_eval_measure_of_the_evaluation_module():
    from learnsim.evaluation import per_query_run_measures

    rng = np.random.default_rng(0)
    S = rng.random((6, 40))
    docs = np.tile(np.arange(40), (6, 1))
    relevant = [{int(d): float(rng.integers(1, 3)) for d in rng.choice(40, 5, replace=False)} for _ in range(6)]
    run = {str(i): {str(d): float(S[i, d]) for d in range(40)} for i in range(6)}
    qrels = {str(i): {str(d): int(g) for d, g in rel.items()} for i, rel in enumerate(relevant)}
    expected = per_query_run_measures(run, qrels, ("ndcg@10",))
    got = ndcg_at_k(S, docs, relevant)
    for i in range(6):
        assert got[i] == pytest.approx(expected[str(i)]["ndcg@10"], abs=1e-9)


def _pool(learned, seed=0):
    texts, pairs, n_docs = _collection(seed=seed)
    split = split_search(pairs, np.ones(len(pairs)), len(texts), documents=np.arange(n_docs), random_state=0)
    baselines = SearchBaselines(texts, np.arange(n_docs))
    return split, baselines.pool(split, learned=learned(split, n_docs))


def test_remembering_the_judged_documents_passes_on_warm_queries_and_fails_the_cold_part():
    """A 'learned' score that is the baseline plus a bonus for every document a training pair
    judged relevant: it lifts warm queries and pushes the cold ones' documents down; the check
    must see it and keep BM25."""
    def learned(split, n_docs):
        texts, pairs, _ = _collection()
        judged = np.zeros(n_docs)
        judged[np.unique(pairs[split.train][:, 1])] = 1.0

        def memory(q):
            return np.tile(judged, (len(q), 1))
        return {"memory": memory}

    split, pool = _pool(learned)
    assert split.cold.any() and split.has_seen.any()
    with pytest.warns(BaselineWarning, match="BM25"):
        check = check_search(pool, [{"bm25": 1.0, "memory": 0.5}], owner="test")
    assert check.fell_back and check.baseline == "bm25"
    report = check.report
    assert report.warm["gain"] > 0 and report.cold["gain"] < 0 and report.cold["ci_high"] < 0


def test_a_score_that_knows_the_answer_is_kept_and_reported_with_its_parts():
    def learned(split, n_docs):
        texts, pairs, _ = _collection()
        answer = dict((int(a), int(b)) for a, b in pairs)

        def oracle(q):
            S = np.zeros((len(q), n_docs))
            S[np.arange(len(q)), [answer[int(i)] for i in q]] = 1.0
            return S
        return {"oracle": oracle}

    split, pool = _pool(learned)
    with warnings.catch_warnings():
        warnings.simplefilter("error", BaselineWarning)
        check = check_search(pool, [{"bm25": 0.5, "oracle": 0.5}, {"bm25": 1.0}], owner="test")
    assert check.chosen == 0 and not check.fell_back
    report = check.report
    assert report.status == "learned" and report.ci_low > 0 and report.cold["gain"] > 0
    assert report.detail["strongest_baseline"] == "bm25"
    line = report.summary()
    assert "cold" in line and "BM25" in line and "kept the learned part" in line
    # the report survives the model file
    from learnsim.baseline import BaselineGain

    assert BaselineGain.from_dict(report.to_dict()) == report


def test_with_an_encoder_the_baselines_include_its_cosine_and_the_mix():
    texts, pairs, n_docs = _collection(seed=4)
    rng = np.random.default_rng(0)
    E = rng.normal(size=(len(texts), 8))
    split = split_search(pairs, np.ones(len(pairs)), len(texts), documents=np.arange(n_docs), random_state=0)
    pool = SearchBaselines(texts, np.arange(n_docs), encoder_vectors=E).pool(split)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        check = check_search(pool, [{"encoder": 1.0}], owner="test")
    assert set(check.scores) == {"bm25", "cosine", "encoder", "encoder+bm25"}
    # a random encoder is far weaker than the lexical baselines here, and learns nothing
    assert check.scores["encoder"] < min(check.scores["bm25"], check.scores["cosine"])
    assert check.baseline != "encoder" and check.fell_back


def _synthetic_pool(n, bm25_wins, judged=None):
    """A pool of n queries over 5 documents, query i's relevant document i % 5: "bm25" ranks it
    first on the queries of ``bm25_wins`` (a mask), "cosine" on the others."""
    from learnsim.baseline import SearchSplit
    from learnsim.baseline._search import PooledScores

    queries = np.arange(100, 100 + n)
    relevant = tuple({int(i % 5): 1.0} for i in range(n))
    split = SearchSplit(train=np.zeros(0, dtype=bool), held=np.zeros(0, dtype=bool), queries=queries,
                        relevant=relevant, seen=tuple(frozenset() for _ in relevant), documents=np.arange(5),
                        groups=queries.copy(), by="query and document")
    docs = np.tile(np.arange(5), (n, 1))
    hit = np.zeros((n, 5))
    hit[np.arange(n), np.arange(n) % 5] = 1.0
    wrong = np.roll(hit, 1, axis=1)
    wins = np.asarray(bm25_wins)[:, None]
    bases = {"bm25": np.where(wins, hit, wrong), "cosine": np.where(wins, wrong, hit), "learned": hit * 0.5}
    return PooledScores(docs, bases, split, np.arange(n), judged=judged)


def test_the_strongest_baseline_is_chosen_on_every_judged_query():
    """A baseline learns nothing, so every judged query (training ones too) chooses it: 10 held-out
    queries where BM25 wins 6 do not outvote 60 judged ones where the cosine wins 45."""
    judged = _synthetic_pool(60, np.arange(60) >= 45)
    held = np.arange(10) < 6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        alone = check_search(_synthetic_pool(10, held), [{"learned": 1.0}], owner="test")
        pool = _synthetic_pool(10, held, judged=judged)
        check = check_search(pool, [{"learned": 1.0}], owner="test")
    assert alone.baseline == "bm25" and "strongest_chosen_on" not in alone.report.detail
    assert check.baseline == "cosine"
    # the gate compares on the held-out queries, with the baseline chosen on the judged ones
    cosine = pool.measure(pool.mix({"cosine": 1.0}))["all"]
    assert check.report.baseline_score == pytest.approx(float(np.mean(cosine)))
    assert check.report.detail["strongest_chosen_on"] == 60
    assert check.report.detail["judged_cosine"] > check.report.detail["judged_bm25"]
    assert check.scores["bm25"] > check.scores["cosine"]          # on the held-out queries, as before
    assert "the strongest on 60 judged queries" in check.report.summary()
    # judged queries with nothing to find in the pool leave the choice to the held-out ones
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        empty = check_search(_synthetic_pool(10, held, judged=_synthetic_pool(0, np.zeros(0, dtype=bool))),
                             [{"learned": 1.0}], owner="test")
    assert empty.baseline == "bm25" and "strongest_chosen_on" not in empty.report.detail


def _validate(texts, pairs, n_docs, **kwargs):
    from learnsim.baseline import validate_search

    calls = []

    def learner(train, baselines, quiet=False):
        calls.append((train.copy(), quiet))

        def own(q):     # the tf.idf cosine under another name: what is checked is who sees which query
            S = baselines.base_blocks(np.asarray(q))["cosine"]
            return S.toarray() if hasattr(S, "toarray") else np.asarray(S)
        return {"own": own}, [{"own": 1.0}]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        got = validate_search(texts, pairs, np.ones(len(pairs)), learner, owner="test",
                              documents=np.arange(n_docs), **kwargs)
    return got, calls


def test_few_held_out_queries_are_cross_fitted_over_folds_each_query_scored_once():
    from learnsim.baseline import FOLDED_BELOW, FoldedSplit

    texts, pairs, n_docs = _collection(n_queries=120)
    (split, _, check), calls = _validate(texts, pairs, n_docs)
    # 24 held out by one split: 5 folds, each a learner fitted without its queries, every query scored
    assert isinstance(split, FoldedSplit) and len(split.splits) == 5 and len(calls) == 5
    assert split.n_queries == check.report.n_units == 120 < 5 * FOLDED_BELOW
    assert [q for _, q in calls] == [False, True, True, True, True]          # its notes said once
    for (train, _), part in zip(calls, split.splits):
        assert not set(pairs[train, 0].tolist()) & set(part.queries.tolist())
    assert "in 5 folds" in split.describe()
    # folds=1: the one split as before
    (single, _, check1), calls1 = _validate(texts, pairs, n_docs, folds=1)
    assert len(calls1) == 1 and not isinstance(single, FoldedSplit) and check1.report.n_units == single.n_queries < 40


def test_only_as_many_folds_as_bring_the_queries_scored_to_the_bound(monkeypatch):
    from learnsim.baseline import FoldedSplit, _search

    monkeypatch.setattr(_search, "FOLDED_BELOW", 50)
    texts, pairs, n_docs = _collection(n_queries=120)
    (split, _, check), calls = _validate(texts, pairs, n_docs)
    # 24 held out by one split: 3 of the 5 folds bring 72 queries, the first about the one split
    assert isinstance(split, FoldedSplit) and len(calls) == 3 and 60 <= check.report.n_units <= 80
    (single, _, _), _ = _validate(texts, pairs, n_docs, folds=1)
    assert len(set(single.queries.tolist()) ^ set(split.splits[0].queries.tolist())) <= 4


def test_a_small_fraction_makes_no_more_than_max_folds_fits():
    # round(1 / 0.01) folds of 1 or 2 queries: at most MAX_FOLDS fits (it was one fit a fold, 100),
    # and folds only while each holds two queries
    from learnsim.baseline import MAX_FOLDS, FoldedSplit

    texts, pairs, n_docs = _collection(n_queries=600)
    (split, _, check), calls = _validate(texts, pairs, n_docs, fraction=0.03)
    assert 1 <= len(calls) <= MAX_FOLDS
    if isinstance(split, FoldedSplit):
        assert all(part.n_queries >= 2 for part in split.splits) and check.report.n_units == split.n_queries


def test_enough_held_out_queries_keep_one_split(monkeypatch):
    from learnsim.baseline import _search

    monkeypatch.setattr(_search, "FOLDED_BELOW", 10)
    texts, pairs, n_docs = _collection(n_queries=120)
    (split, _, _), calls = _validate(texts, pairs, n_docs)
    assert len(calls) == 1 and split.n_queries >= 10


def test_folds_from_a_generator_still_hold_each_query_out_once():
    # every fold's split drew its own order from a generator (or None): folds would overlap
    texts, pairs, n_docs = _collection(n_queries=120)
    (split, _, _), _ = _validate(texts, pairs, n_docs, random_state=np.random.default_rng(5))
    held = [q for part in split.splits for q in part.queries.tolist()]
    assert len(held) == len(set(held)) == split.n_queries


def test_a_fraction_above_one_half_that_leaves_too_few_to_learn_from_still_checks():
    # 0.9 of 8 queries leaves none to learn from: the learner was kept unchecked; half and half
    # (what the folds make of any fraction above one half) checks every query
    from learnsim.baseline import FoldedSplit, split_search

    texts, pairs, n_docs = _collection(n_queries=8)
    assert split_search(pairs, np.ones(len(pairs)), len(texts), fraction=0.9, documents=np.arange(n_docs)) is None
    got, calls = _validate(texts, pairs, n_docs, fraction=0.9)
    assert got is not None
    split, _, check = got
    assert isinstance(split, FoldedSplit) and len(calls) == 2 and check.report.n_units == 8
    for train, _ in calls:
        assert len(set(pairs[train, 0].tolist())) >= 2

"""The held-out search check's plain queries (learnsim.baseline._probe): known-item queries made
from documents no training pair names. A rule that gains on the judged kind of query and loses
on plain ones is not kept, and where the judged queries cannot tell two baselines apart, the one
that holds up on plain queries is the baseline."""
import warnings

import numpy as np
import pytest

from learnsim.baseline import SearchBaselines, probe_texts, split_search, validate_search
from learnsim.baseline._probe import MIN_PROBES, probes_of
from learnsim.exceptions import BaselineWarning

WORDS = [f"w{i}" for i in range(300)]


def _collection(n_docs=240, n_judged=60, queries_per=3, seed=0):
    """Documents of 25 random words; queries (2 words of their document and 2 random ones) judge
    the first ``n_judged`` documents only: the others are never named by a pair."""
    rng = np.random.default_rng(seed)
    docs = [" ".join(rng.choice(WORDS, 25)) for _ in range(n_docs)]
    queries, pairs = [], []
    for d in range(n_judged):
        for _ in range(queries_per):
            pairs.append((n_docs + len(queries), d))
            queries.append(" ".join(list(rng.choice(docs[d].split(), 2, replace=False)) + list(rng.choice(WORDS, 2))))
    return docs + queries, np.array(pairs), n_docs


def test_probes_are_words_of_their_document_in_its_order_as_long_as_the_queries():
    rng = np.random.default_rng(3)
    texts = [" ".join(rng.choice(WORDS, 30)) for _ in range(50)]
    probes, source = probe_texts(texts, np.arange(50), ["a b c", "d e f", "g h i j"], 20, random_state=1)
    assert len(probes) == 20 and len(set(source.tolist())) == 20
    for p, s in zip(probes, source):
        words, doc = p.split(), texts[s].split()
        assert len(words) == 3
        # a subsequence of its document: its words in the order they come
        it = iter(doc)
        assert all(w in it for w in words)


def test_a_text_without_spaces_gives_a_run_of_its_characters_and_short_texts_none():
    texts = ["東京都港区の古い寺院について書かれた長い記事の本文です", "短い", "ab cd"]
    probes, source = probe_texts(texts, [0, 1, 2], ["古い寺院", "港区の寺"], 10)
    assert source.tolist() == [0]
    assert probes[0] in texts[0] and len(probes[0]) == 4


def test_probes_come_only_from_documents_no_training_pair_names():
    texts, pairs, n_docs = _collection()
    split = split_search(pairs, np.ones(len(pairs)), len(texts), documents=np.arange(n_docs), random_state=0)
    baselines = SearchBaselines(texts, split.documents)

    def learned(block):
        return {"learned": np.zeros((len(block), split.documents.size))}
    probes = probes_of(baselines, split, pairs, split.train, texts, learned)
    assert probes is not None and probes.n_queries >= MIN_PROBES
    named = set(pairs[split.train].ravel().tolist())
    assert not set(probes.sources.tolist()) & named
    assert set(probes.sources.tolist()) <= set(range(n_docs))
    # too few documents left unnamed: no probes
    assert probes_of(SearchBaselines(texts, np.arange(MIN_PROBES)), split, pairs, split.train, texts, learned) is None
    # every probe's one relevant document is in its pool, and BM25 finds most of them first
    assert probes.gains.sum(axis=1).min() == 1
    assert np.mean(probes.measure(probes.mix({"bm25": 1.0}))) > 0.5


def _remembering_learner(texts, pairs, n_docs, probe):
    """A learner that knows the relevant documents of every judged query (it remembers them) and
    ranks any other text at random: far above every baseline on held-out judged queries."""
    relevant = {}
    for q, d in pairs:
        relevant.setdefault(int(q), set()).add(int(d))
    rng = np.random.default_rng(0)

    def fit_learner(train, baselines, quiet=False):
        docs = baselines.documents

        def learned(q):
            S = rng.random((len(q), docs.size)) * 0.1
            for i, query in enumerate(np.asarray(q).tolist()):
                S[i, np.isin(docs, list(relevant.get(query, ())))] = 1.0
            return S

        def new_texts(block):
            return {"learned": rng.random((len(block), docs.size))}
        bases, candidates = {"learned": learned}, [{"learned": 1.0}]
        return (bases, candidates, new_texts) if probe else (bases, candidates)
    return fit_learner


def test_a_rule_that_remembers_the_judged_documents_and_ranks_plain_queries_at_random_is_not_kept():
    texts, pairs, n_docs = _collection()
    grades = np.ones(len(pairs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # without plain queries the check cannot see it: every held-out judged query gains
        _, _, blind = validate_search(texts, pairs, grades, _remembering_learner(texts, pairs, n_docs, False),
                                      owner="test", documents=np.arange(n_docs))
    assert not blind.fell_back and blind.report.gain > 0.3
    with pytest.warns(BaselineWarning, match="plain queries"):
        _, _, check = validate_search(texts, pairs, grades, _remembering_learner(texts, pairs, n_docs, True),
                                      owner="test", documents=np.arange(n_docs))
    assert check.fell_back and check.report.gain > 0.3
    detail = check.report.detail
    assert detail["probe_n_units"] >= MIN_PROBES and detail["probe_ci_high"] < 0
    assert detail["probe_baseline"] in ("BM25", "tf.idf cosine")
    assert "plain queries (" in check.report.summary()


def _probe_side(bm25, cosine):
    return {"bases": {"bm25": np.asarray(bm25, dtype=float), "cosine": np.asarray(cosine, dtype=float)}}


def test_the_plain_queries_choose_the_baseline_only_where_the_judged_queries_cannot():
    from learnsim.baseline._search import _better_on_probes

    rng = np.random.default_rng(0)
    n = 200
    probes = _probe_side(rng.uniform(0.6, 1.0, 300), rng.uniform(0.3, 0.7, 300))   # BM25 far ahead there
    units = np.arange(n)
    # the cosine leads the judged queries by 0.1 on every query: the judged queries decide
    base = rng.uniform(0.2, 0.6, n)
    certain = {"cosine": base + 0.1, "bm25": base}
    assert _better_on_probes("cosine", certain, units, probes, 0.95, 0) == "cosine"
    # a lead that is noise (0.008 in the mean, queries either way): the plain queries decide
    noise = {"cosine": base + rng.normal(0.008, 0.2, n), "bm25": base}
    assert _better_on_probes("cosine", noise, units, probes, 0.95, 0) == "bm25"
    # and not where the other is not better on the plain queries for certain
    level = _probe_side(rng.uniform(0.3, 0.7, 300), rng.uniform(0.3, 0.7, 300))
    assert _better_on_probes("cosine", noise, units, level, 0.95, 0) == "cosine"


def test_a_rule_that_ranks_as_the_baseline_does_is_named_so():
    """Among FILM's mixes BM25 alone may be chosen: its gain is +0.0000 (+0.0000 to +0.0000), and
    the reason says that the rule is the baseline's, not that a learned one lost."""
    from learnsim.baseline import check_search

    texts, pairs, n_docs = _collection()
    split = split_search(pairs, np.ones(len(pairs)), len(texts), documents=np.arange(n_docs), random_state=0)
    pool = SearchBaselines(texts, np.arange(n_docs)).pool(split)
    with pytest.warns(BaselineWarning, match="ranks them all as BM25 does"):
        check = check_search(pool, [{"bm25": 1.0}], owner="test")
    assert check.fell_back and check.report.gain == 0.0

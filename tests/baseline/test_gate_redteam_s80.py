"""Red-team of the held-out search check (learnsim.baseline.validate_search): rules that do not
generalise to new queries and documents, and whether the check keeps them.

The collection: 20 topics of 40 documents; each judged query is three of its topic's words and
its relevant documents are three of the topic's documents drawn at random, so the lexical
baselines find the topic but not which of its documents is relevant. A new query is drawn the
same way: nothing about a document tells whether a query will judge it. The corpus lists the
judged documents first (a user's judged set with a crawl appended), so a rule that ranks the
documents early in the corpus first ranks the judged ones first: every held-out relevant document
is a judged one, new queries' are not.
"""
import warnings

import numpy as np
import pytest

from learnsim.baseline import validate_search


def _collection(seed, doc_words=(12, 28)):
    """(texts, pairs, grades, documents, fresh): the judged-first collection (module notes) with
    150 judged queries, and 200 fresh queries drawn as they were ((text, {document: grade}))."""
    rng = np.random.default_rng(seed)
    filler = [f"f{i}" for i in range(600)]
    p = 1.0 / np.arange(1, 601) ** 0.9
    p /= p.sum()
    topic_words = [[f"t{t}x{i}" for i in range(30)] for t in range(20)]
    docs, topic_of = [], []
    for t in range(20):
        for _ in range(40):
            words = list(rng.choice(topic_words[t], doc_words[0])) + list(rng.choice(filler, doc_words[1], p=p))
            rng.shuffle(words)
            docs.append(words)
            topic_of.append(t)
    topic_of = np.array(topic_of)

    def queries(n, qseed):
        r = np.random.default_rng(qseed)
        out = []
        for _ in range(n):
            t = int(r.integers(20))
            rel = r.choice(np.flatnonzero(topic_of == t), 3, replace=False)
            out.append((" ".join(r.choice(topic_words[t], 3)), {int(d): 1.0 for d in rel}))
        return out

    train = queries(150, seed + 1)
    judged = np.zeros(len(docs), dtype=bool)
    for _, rel in train:
        judged[list(rel)] = True
    order = np.concatenate([np.flatnonzero(judged), np.flatnonzero(~judged)])
    new = np.empty(len(docs), dtype=np.int64)
    new[order] = np.arange(len(docs))
    n = len(docs)
    texts = [" ".join(docs[i]) for i in order] + [q for q, _ in train]
    pairs = np.array([(n + j, int(new[d])) for j, (_, rel) in enumerate(train) for d in rel])
    fresh = [(q, {int(new[d]): g for d, g in rel.items()}) for q, rel in queries(200, seed + 777)]
    return texts, pairs, np.ones(len(pairs)), np.arange(n), fresh


_COMBOS = [{"bm25": 1.0}, {"cosine": 1.0}] + [{"bm25": a, "cosine": 1.0 - a} for a in (0.25, 0.5, 0.75)]


def _early_first(train, baselines, quiet=False):
    """A learner that learns nothing from the pairs: each candidate is a baseline's rule plus a
    prior on the documents' place in the corpus (earlier higher), for queries and plain queries alike."""
    docs = baselines.documents
    row = (1.0 - docs / docs.max())[None, :]
    candidates = _COMBOS + [dict(c, prior=w) for c in _COMBOS for w in (0.003, 0.01, 0.03, 0.1, 0.3)]
    return ({"prior": lambda q: np.repeat(row, len(q), axis=0)}, candidates,
            lambda texts: {"prior": np.repeat(row, len(texts), axis=0)})


def _check(texts, pairs, grades, documents, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        split, baselines, check = validate_search(texts, pairs, grades, _early_first, owner="test",
                                                  documents=documents, random_state=seed)
    return baselines, check


def _ndcg(S, documents, judgements, k=10):
    out = []
    for i, (_, rel) in enumerate(judgements):
        top = np.argsort(-S[i], kind="stable")[:k]
        dcg = sum(rel.get(int(documents[c]), 0.0) / np.log2(r + 2) for r, c in enumerate(top))
        out.append(dcg / sum(1.0 / np.log2(r + 2) for r in range(min(k, len(rel)))))
    return float(np.mean(out))


def _on_fresh(baselines, fresh, rule):
    docs = baselines.documents
    B = baselines.lexical_blocks([q for q, _ in fresh])
    B["prior"] = np.repeat((1.0 - docs / docs.max())[None, :], len(fresh), axis=0)
    return _ndcg(sum(w * B[name] for name, w in rule.items()), docs, fresh)


def test_plain_queries_reject_the_early_first_prior_on_long_documents():
    """What the check does right: with documents long enough to make plain queries from, the
    prior falls below BM25 on them (0.57 against 0.83 nDCG@10 on seed 0) and is not kept."""
    texts, pairs, grades, documents, fresh = _collection(0)
    baselines, check = _check(texts, pairs, grades, documents, 0)
    assert check.fell_back, check.report.summary()
    assert check.report.detail["probe_ci_high"] < 0


def test_the_early_first_prior_loses_on_fresh_queries_of_short_documents():
    """The premise of the next test: on fresh queries drawn as the judged ones were, the prior's
    rules rank below the baselines (0.073 against BM25's 0.111 nDCG@10 on seed 0)."""
    texts, pairs, grades, documents, fresh = _collection(0, doc_words=(2, 3))
    from learnsim.baseline import SearchBaselines

    baselines = SearchBaselines(texts, documents)
    base = max(_on_fresh(baselines, fresh, {"bm25": 1.0}), _on_fresh(baselines, fresh, {"cosine": 1.0}))
    for c in ({"bm25": 1.0, "prior": 0.3}, {"bm25": 0.75, "cosine": 0.25, "prior": 0.3}):
        assert _on_fresh(baselines, fresh, c) < 0.9 * base


@pytest.mark.xfail(strict=True, reason="defect: on short documents (fewer words than twice the judged queries' "
                   "median) no plain query is made, and a prior that ranks the judged documents first (here the "
                   "corpus order) gains overall and apart, since every held-out relevant document is a judged one: "
                   "kept on 3 seeds of 3 while it loses on fresh queries (about 0.7x the baseline)")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_prior_on_which_documents_were_judged_is_not_kept_where_no_plain_query_can_be_made(seed):
    texts, pairs, grades, documents, fresh = _collection(seed, doc_words=(2, 3))
    baselines, check = _check(texts, pairs, grades, documents, seed)
    assert check.fell_back, (check.report.summary(), check.report.detail)


def _early_first_without_plain_scores(train, baselines, quiet=False):
    """The same learner, its plain-query function giving none of its bases."""
    bases, candidates, _ = _early_first(train, baselines, quiet)
    return bases, candidates, lambda texts: {}


def test_a_plain_query_function_that_leaves_out_a_base_does_not_turn_the_plain_queries_off():
    texts, pairs, grades, documents, _ = _collection(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = validate_search(texts, pairs, grades, _early_first_without_plain_scores, owner="test",
                                  documents=documents, random_state=0)
        except ValueError as exc:
            # refused, naming the missing base: as good as checked. Before, the plain queries were
            # silently left out and the early-first prior they reject was kept (held-out nDCG@10
            # 0.271 against 0.173; 0.183 against 0.186 on fresh queries)
            assert "plain-query function gave no scores" in str(exc)
            return
    assert got[2].fell_back, got[2].report.summary()

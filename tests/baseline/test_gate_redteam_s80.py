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


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_prior_on_which_documents_were_judged_is_not_kept_where_no_plain_query_can_be_made(seed):
    """On short documents (fewer words than twice the judged queries' median) no plain query is
    made, and every held-out relevant document is a judged one: the prior gained overall and
    apart, and was kept on 3 seeds of 3 (seed 0: 0.191 against the tf.idf cosine's 0.149) while
    it loses on fresh queries. Ranked among the documents some judgement names only (the
    condensed part), it gains nothing (seed 0: -0.002, -0.014 to +0.010)."""
    texts, pairs, grades, documents, fresh = _collection(seed, doc_words=(2, 3))
    baselines, check = _check(texts, pairs, grades, documents, seed)
    assert check.fell_back, (check.report.summary(), check.report.detail)
    detail = check.report.detail
    assert "probe_gain" not in detail          # no plain query: the condensed part decides
    assert detail["condensed_ci_low"] <= 0 < detail["apart_ci_low"]
    assert "some judgement names" in check.report.reason


def test_the_condensed_part_takes_out_the_documents_no_judgement_names_and_no_other():
    from learnsim.baseline import SearchBaselines, split_search

    texts, pairs, grades, documents, _ = _collection(0, doc_words=(2, 3))
    split = split_search(pairs, grades, len(texts), documents=documents, random_state=0)
    pool = SearchBaselines(texts, split.documents).pool(split)
    gains, excluded, _ = pool.views["condensed"]
    pooled = pool.documents >= 0
    judged = np.unique(pairs[:, 1])
    assert np.array_equal(excluded[pooled], ~np.isin(pool.documents[pooled], judged))
    assert not (excluded & (gains > 0)).any()          # every relevant document stays
    # a collection of judged documents only: the condensed part would be the whole ranking, and is not made
    split = split_search(pairs, grades, len(texts), documents=judged, random_state=0)
    pool = SearchBaselines(texts, split.documents).pool(split)
    assert "condensed" not in pool.measure(pool.mix({"bm25": 1.0}))


def _synonym_collection(seed):
    """(texts, pairs, grades, documents, fresh): short documents (2 topic words of 10 and 3
    filler words), listed judged first as in _collection, and queries that name one of a
    document's two topic words by its synonym (``s...`` for ``t...``), the other as it is, beside
    one of its filler words; its relevant documents are those with both topic words. The lexical
    baselines miss the synonym; the synonyms are the same for judged and fresh queries, so a map learned from the
    training pairs carries over to new queries and new documents."""
    rng = np.random.default_rng(seed)
    filler = [f"f{i}" for i in range(600)]
    p = 1.0 / np.arange(1, 601) ** 0.9
    p /= p.sum()
    docs, pairs_of = [], []
    for t in range(20):
        for _ in range(40):
            two = rng.choice(10, 2, replace=False)
            words = [f"t{t}x{i}" for i in two] + list(rng.choice(filler, 3, p=p))
            rng.shuffle(words)
            docs.append(words)
            pairs_of.append(frozenset(w for w in words if w.startswith("t")))

    def queries(n, qseed):
        r = np.random.default_rng(qseed)
        out = []
        for _ in range(n):
            d = int(r.integers(len(docs)))
            topic = list(r.permutation(sorted(pairs_of[d])))
            plain = r.choice([w for w in docs[d] if w.startswith("f")])
            words = ["s" + topic[0][1:], topic[1], plain]
            r.shuffle(words)
            rel = {j: 1.0 for j in range(len(docs)) if pairs_of[j] == pairs_of[d]}
            out.append((" ".join(words), rel))
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


def _synonym_learner(texts, pairs):
    """A learner that learns from the pairs: each query word that is not a document word is
    mapped to the document word it meets most often in the training pairs' documents (over its
    document frequency), and the learned base is BM25 of the query so translated."""
    def fit_learner(train, baselines, quiet=False):
        vocabulary = set(w for d in baselines.documents.tolist() for w in texts[d].split())
        counts, df = {}, {}
        for q, d in pairs[np.asarray(train, dtype=bool)].tolist():
            for v in set(texts[d].split()):
                df[v] = df.get(v, 0) + 1
                for w in set(texts[q].split()) - vocabulary:
                    counts.setdefault(w, {}).setdefault(v, 0)
                    counts[w][v] += 1
        synonym = {w: max(c, key=lambda v: (c[v] / df[v] ** 0.5, c[v], v)) for w, c in counts.items()}

        def translated(query_texts):
            said = [" ".join(synonym.get(w, w) for w in t.split()) for t in query_texts]
            return {"learned": baselines.lexical_blocks(said)["bm25"]}

        candidates = [{"learned": 1.0}] + [{"learned": a, "bm25": 1.0 - a} for a in (0.25, 0.5, 0.75)]
        return ({"learned": lambda q: translated([texts[i] for i in q])["learned"]}, candidates, translated)
    return fit_learner


@pytest.mark.parametrize("seed", [0, 1])
def test_a_learner_that_learns_synonyms_from_the_pairs_is_kept_on_short_documents(seed):
    """The condensed part is no rule against short documents: a learner that maps the queries'
    synonyms to the documents' words, learned from the training pairs, gains on fresh queries
    (seed 0: nDCG@10 0.917 against BM25's 0.850) and is kept on seeds 0-4 (seed 0: +0.028 held
    out, +0.015 to +0.041; condensed +0.006, +0.001 to +0.011: among fewer documents the
    baselines find more, and a gain shrinks)."""
    texts, pairs, grades, documents, fresh = _synonym_collection(seed)
    fit_learner = _synonym_learner(texts, pairs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        split, baselines, check = validate_search(texts, pairs, grades, fit_learner, owner="test",
                                                  documents=documents, random_state=seed)
    assert not check.fell_back, check.report.summary()
    assert check.report.detail["condensed_ci_low"] > 0
    # the premise: on fresh queries, the rule kept (its map learned from every pair) beats both baselines
    _, candidates, translated = fit_learner(np.ones(len(pairs), dtype=bool), baselines)
    B = baselines.lexical_blocks([q for q, _ in fresh])
    B.update(translated([q for q, _ in fresh]))
    kept = _ndcg(sum(w * B[name] for name, w in candidates[check.chosen].items()), documents, fresh)
    assert kept > 0.01 + max(_ndcg(B["bm25"], documents, fresh), _ndcg(B["cosine"], documents, fresh))


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

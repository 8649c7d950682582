"""learnsim.baseline.split_search: search supervision held out by query and by document, or by
whole components (issue 42, point 1)."""
import numpy as np
import pytest

from learnsim.baseline import split_search


def _qrels(n_queries=40, n_docs=60, per_query=3, seed=0):
    """Queries 0..n_queries-1 judging documents n_queries..: each query judges `per_query`
    documents, overlapping with its neighbours (so documents are shared, as in real judgements)."""
    rng = np.random.default_rng(seed)
    pairs = []
    for q in range(n_queries):
        for d in rng.choice(n_docs, per_query, replace=False):
            pairs.append((q, n_queries + int(d)))
    return np.array(pairs), n_queries + n_docs


def test_query_and_document_split_keeps_held_out_queries_and_cold_documents_out_of_training():
    pairs, n = _qrels()
    split = split_search(pairs, np.ones(len(pairs)), n, fraction=0.25, random_state=1)
    assert split.by == "query and document"
    train_texts = set(pairs[split.train].ravel().tolist())
    # no held-out query sits in a training pair
    assert not train_texts & set(split.queries.tolist())
    # the seen (warm) documents are exactly those a training pair names
    for rel, seen in zip(split.relevant, split.seen):
        assert seen == {d for d in rel if d in train_texts}
    # some queries are cold as a whole, others warm: both parts are measured
    assert split.cold.any() and split.has_seen.any()
    assert split.n_cold_documents > 0
    # queries are never documents of the collection
    assert not set(split.documents.tolist()) & set(range(40))


def test_the_views_split_each_query_s_judgements_into_cold_and_warm():
    pairs, n = _qrels(seed=3)
    split = split_search(pairs, np.ones(len(pairs)), n, fraction=0.3, random_state=0)
    cold, warm, every = split.view("cold"), split.view("warm"), split.view("all")
    for (rel_c, out_c), (rel_w, out_w), (rel, out), seen in zip(cold, warm, every, split.seen):
        assert set(rel_c) | set(rel_w) == set(rel) and not set(rel_c) & set(rel_w)
        assert set(out_c) == set(rel_w) and set(out_w) == set(rel_c) and out == ()
        assert set(rel_w) == set(seen)
    with pytest.raises(ValueError, match="part must be"):
        split.view("hot")


def test_duplicates_are_held_out_by_whole_component():
    # 30 duplicate pairs whose texts appear on both sides (chains a-b, b-c), plus non-duplicates
    pairs, labels = [], []
    for c in range(30):
        a, b, d = 3 * c, 3 * c + 1, 3 * c + 2
        pairs += [(a, b), (b, d)]
        labels += [1, 1]
    pairs += [(0, 4), (7, 10)]
    labels += [0, 0]
    pairs = np.array(pairs)
    split = split_search(pairs, np.array(labels, float), 90, random_state=0)
    assert split.by == "component"
    held_texts = set(pairs[split.held].ravel().tolist())
    train_texts = set(pairs[split.train].ravel().tolist())
    assert not held_texts & train_texts              # no text on both sides
    assert split.cold.all()                         # every held-out query is cold
    # chains: a query's duplicates are its whole chain (a-b-d)
    q = int(split.queries[0])
    assert len(split.relevant[0]) == 2 and q not in split.relevant[0]


def test_graded_judgements_keep_their_grades_and_grade_zero_is_not_relevant():
    pairs, n = _qrels(seed=5)
    grades = np.where(np.arange(len(pairs)) % 3 == 0, 2.0, 1.0)
    grades[1::7] = 0.0
    split = split_search(pairs, grades, n, random_state=0)
    lookup = {(int(a), int(b)): g for (a, b), g in zip(pairs, grades)}
    for q, rel in zip(split.queries, split.relevant):
        for d, g in rel.items():
            assert g == lookup[(int(q), d)] > 0


def test_too_little_supervision_gives_none_and_bad_input_is_refused():
    assert split_search(np.array([[0, 3], [1, 4], [2, 5]]), np.ones(3), 6) is None
    with pytest.raises(ValueError, match="grades"):
        split_search(np.array([[0, 1]]), np.array([-1.0]), 2)
    with pytest.raises(ValueError, match="no relevant pair"):
        split_search(np.array([[0, 1], [2, 3]]), np.zeros(2), 4)
    with pytest.raises(ValueError, match="outside"):
        split_search(np.array([[0, 9]]), np.ones(1), 3)


def test_one_judged_document_is_never_held_out():
    """Every query judging the same one document (a click log whose clicks all fell on one
    result): holding it out would leave training no relevant pair; the split keeps it in
    training and checks on held-out queries alone (all warm)."""
    pairs = np.array([[q, 20] for q in range(20)])
    split = split_search(pairs, np.ones(len(pairs)), 21, fraction=0.2, random_state=0)
    assert split is not None and split.n_cold_documents == 0
    assert split.train.any() and 20 in set(pairs[split.train, 1].tolist())
    assert not split.cold.any() and split.has_seen.all()


def test_the_split_is_seeded():
    pairs, n = _qrels()
    a = split_search(pairs, np.ones(len(pairs)), n, random_state=7)
    b = split_search(pairs, np.ones(len(pairs)), n, random_state=7)
    c = split_search(pairs, np.ones(len(pairs)), n, random_state=8)
    assert a.queries.tolist() == b.queries.tolist() and (a.train == b.train).all()
    assert a.queries.tolist() != c.queries.tolist()


def test_every_judged_query_is_kept_for_choosing_the_baseline():
    """The strongest baseline is chosen on every judged query (a baseline learns nothing from
    them): each kind of split records them, the held-out ones among them, with the same relevance."""
    from learnsim.baseline import split_clusters

    pairs, n_texts = _qrels()
    split = split_search(pairs, np.ones(len(pairs)), n_texts, random_state=0)
    every = split.every_query()
    assert every.n_queries == 40 and set(split.queries) < set(every.queries.tolist())
    for q, rel in zip(split.queries, split.relevant):
        assert every.relevant[every.queries.tolist().index(q)] == rel
    assert all(not s for s in every.seen)          # nothing to be warm about: every query cold
    # duplicates held out by component: the texts of the sampled relevant pairs, each with its chain
    dup = np.array([p for i in range(20) for p in ((3 * i, 3 * i + 1), (3 * i + 1, 3 * i + 2))])
    split = split_search(dup, np.ones(40), 60, random_state=0)
    every = split.every_query()
    assert split.by == "component" and every.n_queries == 60
    assert all(set(rel) == set(range(q - q % 3, q - q % 3 + 3)) - {q} for q, rel in zip(every.queries.tolist(),
                                                                                         every.relevant))
    # clusters: every clustered item with a mate (a singleton has none), bounded in entries
    labels = np.r_[np.repeat(np.arange(10), 3), 99, -1]
    _, split = split_clusters(labels, 0.2, random_state=0)
    every = split.every_query()
    assert sorted(every.queries.tolist()) == list(range(30))
    assert all(len(rel) == 2 and q not in rel for q, rel in zip(every.queries.tolist(), every.relevant))


def test_the_judged_queries_of_large_clusters_stay_within_their_entry_budget(monkeypatch):
    from learnsim.baseline import _split, split_clusters

    monkeypatch.setattr(_split, "MAX_JUDGED_ENTRIES", 500)
    _, split = split_clusters(np.repeat(np.arange(5), 100), 0.2, random_state=0)
    every = split.every_query()
    assert 2 <= every.n_queries <= 5 and sum(len(r) for r in every.relevant) <= 500


# --------------------------------------------------------------------------- what the pairs are, and twins

def test_a_few_texts_on_both_sides_leave_judgements_judgements():
    # judgements plus one pair of two judged documents: still from queries to documents, held out
    # by query and document with each query's own relevant documents (not every text its chains join)
    from learnsim.baseline import search_relation

    pairs, n = _qrels(n_queries=300, n_docs=400, per_query=4, seed=2)
    docs = pairs[:, 1]
    pairs = np.vstack([pairs, [[docs[0], docs[5]]]])
    grades = np.ones(len(pairs))
    relation = search_relation(pairs, grades, n)
    assert relation.directed
    split = split_search(pairs, grades, n, fraction=0.2, random_state=0)
    assert split.by == "query and document"
    judged = {}
    for q, d in pairs.tolist():
        judged.setdefault(q, set()).add(d)
    for q, rel in zip(split.queries.tolist(), split.relevant):
        assert set(rel) <= judged[q]
    # the same with a corpus given: the texts that ask are mostly outside it, so judgements
    assert search_relation(pairs, grades, n, documents=np.arange(300, n)).directed


def test_duplicates_with_some_texts_on_both_sides_stay_duplicates():
    # Quora-like: 2-3 % of the texts on both sides, short chains
    from learnsim.baseline import search_relation

    rng = np.random.default_rng(0)
    pairs = [(2 * i, 2 * i + 1) for i in range(400)]
    pairs += [(2 * int(i) + 1, 800 + k) for k, i in enumerate(rng.choice(400, 20, replace=False))]
    relation = search_relation(np.array(pairs), np.ones(len(pairs)), 820)
    assert not relation.directed and relation.chains


def test_a_chain_joining_most_texts_is_not_read_as_one_set_of_duplicates():
    # one long chain of pairs (a path through 200 texts): "duplicates of duplicates" would make
    # every text relevant to every other; each text keeps its direct partners
    from learnsim.baseline import search_relation

    pairs = np.array([(i, i + 1) for i in range(199)])
    relation = search_relation(pairs, np.ones(len(pairs)), 200)
    assert not relation.directed and not relation.chains
    split = split_search(pairs, np.ones(len(pairs)), 200, fraction=0.2, random_state=0)
    assert split is not None
    assert max(len(rel) for rel in split.relevant) <= 2


def test_a_query_asked_again_is_held_out_with_its_twin():
    # 40 queries, each asked twice under two ids (texts q and q + 40: one unit); their pairs judge
    # the same documents. No twin of a held-out query is trained on, and the bootstrap resamples
    # twins together.
    from learnsim.baseline import text_units

    pairs, n = _qrels(n_queries=40, n_docs=60, per_query=3, seed=5)
    twins = pairs.copy()
    twins[:, 0] += 40
    twins[:, 1] += 40
    texts = [f"query {q} about topic {q}" for q in range(40)] + [f"Query {q}, about TOPIC {q}?" for q in range(40)] + \
        [f"document {d}" for d in range(60)]
    P = np.vstack([pairs + np.array([0, 40]), twins])
    units = text_units(texts)
    assert units[40:80].tolist() == list(range(40))
    for seed in range(5):
        split = split_search(P, np.ones(len(P)), len(texts), fraction=0.25, random_state=seed, units=units)
        held = set(split.queries.tolist())
        assert held == {q for q in held} | {units[q] for q in held}          # both twins held
        assert all((q + 40 in held) if q < 40 else (q - 40 in held) for q in held)
        assert not set(P[split.train, 0].tolist()) & held
        assert split.groups.tolist() == units[split.queries].tolist()
    # without the units, twins are split apart (what the check used to do)
    split = split_search(P, np.ones(len(P)), len(texts), fraction=0.25, random_state=0)
    held = set(split.queries.tolist())
    assert any(((q + 40) if q < 40 else (q - 40)) not in held for q in held)


def test_units_change_nothing_where_no_text_repeats():
    from learnsim.baseline import text_units

    pairs, n = _qrels(seed=7)
    texts = [f"query {i}" if i < 40 else f"document {i}" for i in range(n)]
    plain = split_search(pairs, np.ones(len(pairs)), n, fraction=0.25, random_state=3)
    unit = split_search(pairs, np.ones(len(pairs)), n, fraction=0.25, random_state=3, units=text_units(texts))
    assert plain.queries.tolist() == unit.queries.tolist() and (plain.train == unit.train).all()
    assert plain.groups.tolist() == unit.groups.tolist()


def test_folds_hold_every_query_out_once_and_keep_each_fold_out_of_its_training():
    # cross-fitting (validate_search's folds): the k-th run of the seeded order of query units
    pairs, n = _qrels(n_queries=50, seed=4)
    grades = np.ones(len(pairs))
    folds = [split_search(pairs, grades, n, fraction=0.2, random_state=3, fold=(k, 5)) for k in range(5)]
    held = [set(s.queries.tolist()) for s in folds]
    assert sum(len(h) for h in held) == 50 and set().union(*held) == set(range(50))
    assert all(8 <= len(h) <= 12 for h in held)
    for s in folds:
        train_texts = set(pairs[s.train].ravel().tolist())
        assert not train_texts & set(s.queries.tolist()) and s.n_cold_documents > 0
    # the same folds again for the same seed; twins of a unit fall in one fold
    again = split_search(pairs, grades, n, fraction=0.2, random_state=3, fold=(2, 5))
    assert again.queries.tolist() == folds[2].queries.tolist()
    units = np.arange(n)
    units[7] = units[8] = 7
    twins = [split_search(pairs, grades, n, fraction=0.2, random_state=3, units=units, fold=(k, 5)) for k in range(5)]
    assert sum({7, 8} <= set(s.queries.tolist()) for s in twins) == 1


def test_folds_need_query_to_document_pairs_and_a_fold_of_a_few():
    pairs, n = _qrels(n_queries=20)
    with pytest.raises(ValueError, match="fold must be"):
        split_search(pairs, np.ones(len(pairs)), n, fold=(5, 5))
    # texts on both sides of pairs (duplicates in groups): held out by component, never by fold
    dup = np.array([(i, i + 1) for i in range(40) if i % 4 != 3])
    with pytest.raises(ValueError, match="duplicates"):
        split_search(dup, np.ones(len(dup)), 40, fold=(0, 5))


def test_cluster_folds_are_further_runs_of_the_same_order_and_disjoint():
    from learnsim.baseline import split_clusters

    y = np.repeat(np.arange(20), 3)
    first = split_clusters(y, 0.2, random_state=4)
    runs = [split_clusters(y, 0.2, random_state=4, fold=k) for k in range(6)]
    assert runs[0][1].queries.tolist() == first[1].queries.tolist()
    assert runs[5] is None                          # 5 runs of 4 clusters: no sixth
    held = [set(y[s.queries].tolist()) for _, s in runs[:5]]
    assert all(len(h) == 4 for h in held) and set().union(*held) == set(range(20))
    for (train, split), h in zip(runs[:5], held):
        assert set(y[train == -1].tolist()) == h and not (train[split.queries] >= 0).any()

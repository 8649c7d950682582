"""split_search by component on chains of duplicate pairs: duplicates of duplicates are
duplicates, so each text of a held-out chain of m texts asks for its m - 1 mates, m (m - 1)
entries (16 million for 20 chains of 2,000, whose 4 held out made 8,000 queries; 25 million for
one chain of 5,000), and the texts of the 500 sampled pairs for the judged queries another
(m - 1) each. As split_clusters (test_split_clusters_bounded_s81.py), the held-out queries are
now a seeded sample holding at most MAX_JUDGED_ENTRIES entries, the whole chains still held out,
and the judged queries' relevance is built only for the queries taken."""
import numpy as np
from scipy.sparse.csgraph import connected_components
import scipy.sparse as sp

from learnsim.baseline import _split
from learnsim.baseline import judged_queries, search_relation, split_search
from learnsim.baseline._gain import _rng


def _chains(m, k):
    """k chains of m texts each, (a_j, a_{j+1}) within each (texts interleaved)."""
    n = m * k
    pairs = [(c + k * j, c + k * (j + 1)) for c in range(k) for j in range(m - 1)]
    return np.array(pairs, dtype=np.int64), n


def _chain_of(P, n):
    A = sp.csr_matrix((np.ones(len(P)), (P[:, 0], P[:, 1])), shape=(n, n))
    return connected_components(A, directed=False)[1]


def test_held_out_queries_of_long_chains_hold_a_bounded_number_of_entries(monkeypatch):
    monkeypatch.setattr(_split, "MAX_JUDGED_ENTRIES", 10_000)
    P, n = _chains(300, 20)
    G = np.ones(len(P))
    assert search_relation(P, G, n).chains
    split = split_search(P, G, n, random_state=0)
    assert split.by == "component"
    entries = sum(len(r) for r in split.relevant)
    assert entries <= 10_000
    assert split.n_queries >= 2
    chain = _chain_of(P, n)
    # the whole chains stay out of training: no training pair names a text of a held-out one
    held_chains = np.unique(chain[P[split.held].ravel()])
    assert held_chains.size >= 2
    assert not np.isin(chain[P[split.train].ravel()], held_chains).any()
    # a sample, not a prefix: the queries come from more than one held-out chain, and only them
    assert np.unique(chain[split.queries]).size >= 2
    assert np.isin(chain[split.queries], held_chains).all()
    # each query's relevant documents are all its chain's other texts
    for q, rel in zip(split.queries, split.relevant):
        assert set(rel) == set(np.flatnonzero(chain == chain[q]).tolist()) - {int(q)}
    queries, relevant, _ = split.judged
    assert sum(len(r) for r in relevant) <= 10_000
    assert queries.size >= 2
    for q, rel in zip(queries, relevant):
        assert set(rel) == set(np.flatnonzero(chain == chain[q]).tolist()) - {int(q)}


def test_the_bound_draws_the_same_sample_for_the_same_seed(monkeypatch):
    monkeypatch.setattr(_split, "MAX_JUDGED_ENTRIES", 10_000)
    P, n = _chains(300, 20)
    a = split_search(P, np.ones(len(P)), n, random_state=3)
    b = split_search(P, np.ones(len(P)), n, random_state=3)
    assert np.array_equal(a.queries, b.queries) and a.relevant == b.relevant
    assert np.array_equal(a.judged[0], b.judged[0])


def _before(P, G, n, documents, seed):
    """The split's held-out relevance and judged queries as built before the bound: every text
    of the held-out chains asks for all its mates; the judged queries are drawn from the texts of
    500 sampled relevant pairs, each with all its mates."""
    rng = _rng(seed)
    labels = _split._components(P, n)
    comps = np.unique(labels[P[:, 0]])
    counts = np.bincount(labels[P[:, 0]], minlength=labels.max() + 1)
    order = rng.permutation(comps)
    taken, total = [], 0
    for c in order:
        if total >= 0.2 * len(P) and len(taken) >= 2:
            break
        taken.append(c)
        total += counts[c]
    chain = _chain_of(P, n)
    is_doc = np.isin(np.arange(n), documents)

    def mates(t):
        return {int(d): 1.0 for d in np.flatnonzero(chain == chain[t]) if d != t and is_doc[d]}

    texts = np.unique(P[np.isin(labels[P[:, 0]], taken)].ravel())
    rel = {int(t): mates(t) for t in texts if mates(t)}
    sample = np.sort(rng.permutation(np.arange(len(P)))[:_split.MAX_JUDGED // 2])
    every = {int(t): mates(t) for t in np.unique(P[sample].ravel()) if mates(t)}
    return rel, judged_queries(sorted(every), every.get, groups=labels, random_state=rng)


def test_collections_under_the_budget_give_the_same_split_as_before():
    for m, k, seed in ((60, 20, 0), (40, 30, 1), (100, 12, 2)):
        P, n = _chains(m, k)
        G = np.ones(len(P))
        split = split_search(P, G, n, random_state=seed)
        assert split.by == "component"
        rel, judged = _before(P, G, n, split.documents, seed)
        assert split.queries.tolist() == sorted(rel)
        assert [dict(r) for r in split.relevant] == [rel[q] for q in sorted(rel)]
        assert split.judged[0].tolist() == judged[0].tolist()
        assert [dict(r) for r in split.judged[1]] == list(judged[1])
        assert split.judged[2].tolist() == judged[2].tolist()

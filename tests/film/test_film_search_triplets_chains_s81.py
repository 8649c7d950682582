"""FILM's triplets from chains of duplicate pairs (duplicates of duplicates are duplicates): each
of the m texts of a chain is an anchor with m - 1 relevant texts, and every (anchor, relevant)
pair made two or three triplets as Python tuples before a sample of _MAX_FILM_TRIPLETS was kept
(20 chains of 1,000 texts: 20 million pairs; learnsim.fit ran out of 4 GB). The triplets are now
drawn from a seeded sample of at most _MAX_FILM_PAIRS pairs, each text's relevant set a view of
its chain's one set; under the bound, the triplets are those of plain sets, as before."""
import numpy as np

from learnsim.baseline import SearchBaselines, search_relation
from learnsim.film import recipe
from learnsim.text import TextVectorizer


def _chains(m, k, seed=0):
    rng = np.random.default_rng(seed)
    n = m * k
    texts = [" ".join(f"w{(i % k) * 40 + int(j)}" for j in rng.integers(0, 80, 8)) for i in range(n)]
    P = np.array([(c + k * j, c + k * (j + 1)) for c in range(k) for j in range(m - 1)], dtype=np.int64)
    return texts, P, np.ones(len(P))


def _triplets(texts, P, G):
    X = TextVectorizer().fit_transform(texts)
    relation = search_relation(P, G, len(texts))
    assert relation.chains and not relation.directed
    return recipe.search_triplets(P, G, texts, X, SearchBaselines(texts, np.arange(len(texts))), 0,
                                  lambda *a, **k: None, relation)


def test_triplets_of_long_chains_come_from_a_bounded_sample_of_pairs(monkeypatch):
    monkeypatch.setattr(recipe, "_MAX_FILM_PAIRS", 500, raising=False)
    monkeypatch.setattr(recipe, "_MAX_FILM_TRIPLETS", 10**6)
    m, k = 60, 20
    texts, P, G = _chains(m, k)
    T, counts = _triplets(texts, P, G)
    pairs = {(a, b) for a, b, _ in T.tolist()}
    assert 0 < len(pairs) <= 500
    chain = np.arange(m * k) % k
    # every triplet: the anchor's relevant text is of its chain, the negative of another
    assert np.all(chain[T[:, 0]] == chain[T[:, 1]]) and np.all(T[:, 0] != T[:, 1])
    assert np.all(chain[T[:, 2]] != chain[T[:, 0]])
    # a sample over the chains, not a prefix of the anchors
    assert np.unique(chain[T[:, 0]]).size == k
    assert counts["triplets"] == len(T)


def test_triplets_under_the_bound_are_those_of_plain_sets(monkeypatch):
    texts, P, G = _chains(30, 12, seed=1)
    T, counts = _triplets(texts, P, G)
    plain = recipe._relevant_sets

    def copies(*args, **kwargs):
        sets, directed = plain(*args, **kwargs)
        return {a: set(s) for a, s in sets.items()}, directed

    monkeypatch.setattr(recipe, "_relevant_sets", copies)
    T0, counts0 = _triplets(texts, P, G)
    assert np.array_equal(T, T0) and counts == counts0
    sets, _ = plain(P, G, len(texts))
    chain = np.arange(len(texts)) % 12
    for a, s in sets.items():
        assert set(s) == set(np.flatnonzero(chain == chain[a]).tolist()) - {a}
        assert len(s) == 29 and a not in s

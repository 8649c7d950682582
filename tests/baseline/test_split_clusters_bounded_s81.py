"""split_clusters on large clusters: each held-out item of a cluster of m items asks for its
m - 1 mates, so a dict per query made (m items) x (m - 1) entries. learnsim.fit on 20,000 texts
in 4 clusters ran out of 4 GB after 48-69 s (25 million entries for the one held-out cluster).
The held-out queries are now a seeded sample holding at most MAX_JUDGED_ENTRIES entries, as the
judged queries already were; the whole clusters stay held out of training."""
import numpy as np

from learnsim.baseline import _split
from learnsim.baseline import split_clusters


def test_held_out_queries_of_large_clusters_hold_a_bounded_number_of_entries(monkeypatch):
    monkeypatch.setattr(_split, "MAX_JUDGED_ENTRIES", 10_000)
    labels = np.repeat(np.arange(8), 300)
    train, split = split_clusters(labels, 0.25, random_state=0)
    entries = sum(len(r) for r in split.relevant)
    assert entries <= 10_000
    assert split.n_queries >= 2
    # a sample, not a prefix: the queries come from both held-out clusters
    assert len(np.unique(labels[split.queries])) == 2
    # the whole clusters are still out of training, their items cold documents
    held = np.unique(labels[split.queries])
    assert np.all(train[np.isin(labels, held)] == -1)
    assert split.n_cold_documents == int(np.isin(labels, held).sum())
    # each query's relevant documents are all its mates
    for q, rel in zip(split.queries, split.relevant):
        assert set(rel) == set(np.flatnonzero(labels == labels[q])) - {int(q)}


def test_small_clusters_keep_every_held_out_item_as_a_query():
    labels = np.repeat(np.arange(10), 3)
    _, split = split_clusters(labels, 0.2, random_state=0)
    assert split.n_queries == 6
    assert sorted(split.queries.tolist()) == sorted(np.flatnonzero(np.isin(labels, labels[split.queries])).tolist())

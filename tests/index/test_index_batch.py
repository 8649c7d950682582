"""A list of dense queries searched in one pass (learnsim.index._batch) gives the hits of one
search at a time: same ids in the same order (but for scores within float32 rounding of each
other), scores to 1e-6, across segments, deletes, filters, exclusions, blocks and k beyond the
collection, with numba on and off.

The collection is the shared fixtures' (tests/test_index_models.py); their FILM falls back to the
input cosine (sparse rows) after its held-out check, so the FILM here is fitted without that check:
dense rows only, the path under test.
"""
from __future__ import annotations

import functools
import itertools
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

from index_models import FILM_OPTIONS, corpus

from learnsim.index import Index
from learnsim.index import _batch
from learnsim.index._query import QueryRows
from learnsim.index._scan import MemorySegment, best_k

# float32 rounding of a unit vector's inner product (the product sums in another order)
TOL = 1e-6


@functools.lru_cache(maxsize=None)
def dense_film():
    """FILM from the topics, kept whatever the held-out check would say (dense rows)."""
    import learnsim

    texts, topics, _, _ = corpus()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return learnsim.fit(texts, clusters=topics, method="film", baseline_holdout=None, **FILM_OPTIONS)


def _queries():
    texts = corpus()[0]
    mixed = [" ".join(texts[a].split()[:15] + texts[b].split()[:15]) for a, b in ((5, 100), (22, 64), (40, 41))]
    return [texts[i] for i in (0, 17, 33, 58, 71, 99, 110)] + mixed + ["w001 w002 w003", texts[3]]


def _assert_same_hits(got, ref, tol=TOL):
    """Hits of a batch against those of one search at a time: same length, scores to ``tol`` rank
    by rank, and the same id at every rank but where the reference has another score within
    ``tol`` of it (two documents that float32 rounding may swap)."""
    assert len(got) == len(ref)
    sg, sr = np.array([h["score"] for h in got]), np.array([h["score"] for h in ref])
    np.testing.assert_allclose(sg, sr, rtol=0, atol=tol)
    for r, (a, b) in enumerate(zip(got, ref)):
        if a["id"] != b["id"]:
            group = np.flatnonzero(np.abs(sr - sr[r]) <= tol)
            # a near tie at the end of the list may be with a document past it; any other is
            # among the listed documents, which come in another order
            if group[-1] != len(ref) - 1:
                assert group.size > 1 and a["id"] in {ref[j]["id"] for j in group}, \
                    f"rank {r + 1}: {a['id']} against {b['id']} with no near tie"
    assert [h["rank"] for h in got] == list(range(1, len(got) + 1))


@pytest.fixture(scope="module")
def grown(tmp_path_factory):
    """A float32 FILM index built from 80 documents and grown by three adds (four segments)."""
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("batch") / "film"
    idx = Index.build(path, dense_film(), texts[:80], ids[:80], meta[:80])
    for lo, hi in ((80, 95), (95, 96), (96, len(texts))):
        idx.add(texts[lo:hi], ids[lo:hi], meta[lo:hi])
    return idx


@pytest.fixture(params=["0", "1"], ids=["numpy", "numba"])
def numba(request, monkeypatch):
    monkeypatch.setenv("LEARNSIM_NUMBA", request.param)
    return request.param


@pytest.fixture(params=[False, True], ids=["one-block", "small-blocks"])
def blocks(request, monkeypatch):
    """Blocks of the whole segment, or of 7 rows (so that blocks are merged within a segment)."""
    if request.param:
        monkeypatch.setattr(_batch, "MIN_BLOCK_ROWS", 7)
        monkeypatch.setattr(_batch, "BLOCK_SCORES", 7)
        monkeypatch.setattr(_batch, "FUSED_MIN_BLOCK_ROWS", 7)     # the kernels' blocks too
        monkeypatch.setattr(_batch, "FUSED_BLOCK_SCORES", 7)
    return request.param


def _compare(idx, queries, k, **kwargs):
    got = idx.search(queries, k, **kwargs)
    ref = [idx.search(q, k, **kwargs) for q in queries]
    assert len(got) == len(queries)
    for g, r in zip(got, ref):
        _assert_same_hits(g, r)
    return got


def test_the_fixture_takes_the_batch_path(grown):
    assert len(grown.segments) >= 4
    assert all(s.dense is not None and s.indptr is None and s.dtype == np.float32 for s in grown.segments)
    rows = grown._query_rows(_queries())
    assert _batch.dense_batch_applies(grown.segments, rows, grown.kind == "distance")
    # fewer than MIN_BATCH queries go one at a time
    assert not _batch.dense_batch_applies(grown.segments, grown._query_rows(_queries()[:_batch.MIN_BATCH - 1]), False)


@pytest.mark.parametrize("k", [1, 5, 500])
def test_a_batch_finds_the_hits_of_one_search_at_a_time(grown, numba, blocks, k):
    n = len(corpus()[0])
    got = _compare(grown, _queries(), k)
    # k beyond the collection lists every document once
    assert all(len(hits) == min(k, n) for hits in got)
    if k == 500:
        assert all(len({h["id"] for h in hits}) == n for hits in got)


@pytest.mark.parametrize("filter", [{"half": "even"}, {"topic": [1, 4]}, {"topic": 99}])
def test_a_batch_honours_a_filter(grown, numba, blocks, filter):
    got = _compare(grown, _queries(), 200, filter=filter)
    meta = dict(zip(corpus()[2], corpus()[3]))
    for hits in got:
        for h in hits:
            want = filter[next(iter(filter))]
            assert meta[h["id"]][next(iter(filter))] in (want if isinstance(want, list) else [want])
    if filter == {"topic": 99}:
        assert all(hits == [] for hits in got)


def test_a_batch_skips_deleted_documents(tmp_path, numba, blocks):
    texts, _, ids, meta = corpus()
    idx = Index.build(tmp_path / "film", dense_film(), texts[:90], ids[:90], meta[:90])
    idx.add(texts[90:], ids[90:], meta[90:])
    gone = {ids[i] for i in (0, 17, 33, 85, 90, 91, 119)}      # in both segments, and queries' own
    idx.delete(sorted(gone))
    got = _compare(idx, _queries(), 500)
    for hits in got:
        assert not gone & {h["id"] for h in hits}
        assert len(hits) == len(texts) - len(gone)
    got = _compare(idx, _queries(), 3, filter={"half": "odd"})
    assert all(len(hits) == 3 for hits in got)


def test_a_batch_excludes_each_querys_own_row(grown, numba, blocks):
    """``exclude`` (more_like, dedupe): each query drops its own positions, and only those."""
    queries = _queries()
    rows = grown._query_rows(queries)
    exclude = [i * 7 % len(grown) for i in range(len(queries))]
    exclude[3] = [exclude[3], 0, 1, 119]          # several positions, in several segments
    live = grown._live.copy()
    live[[2, 50]] = False                         # and a mask
    for k in (1, 4, 500):
        found = grown._search_rows(rows, k, live, exclude=exclude)
        for i, (values, order) in enumerate(found):
            single = QueryRows([rows.sparse[i]], rows.dense[i:i + 1], None)
            (ref_values, ref_order), = grown._search_rows(single, k, live, exclude=[exclude[i]])
            assert order.shape == ref_order.shape
            np.testing.assert_allclose(values, ref_values, rtol=0, atol=TOL)
            near = np.abs(np.diff(ref_values)) <= TOL
            ties = np.concatenate([[False], near]) | np.concatenate([near, [False]])
            assert np.array_equal(order[~ties], ref_order[~ties])
            assert not np.isin(order, np.atleast_1d(exclude[i])).any()
            assert live[order].all()


def _segment(dense, seqs):
    return MemorySegment(seqs, SimpleNamespace(dense=dense, sparse=None, sq=None), dense.dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_exact_ties_go_to_the_lower_position_as_one_at_a_time(numba, blocks, dtype):
    """Small integer rows sum exactly in any order: the batch must give best_k's very order."""
    rng = np.random.default_rng(0)
    D = rng.integers(-2, 3, size=(300, 6)).astype(dtype)      # many equal scores
    segs = [_segment(D[:130], np.arange(130)), _segment(D[130:130], np.zeros(0)),
            _segment(D[130:], np.arange(130, 300))]
    Q = rng.integers(-1, 2, size=(9, 6)).astype(np.float64)
    allowed = rng.random(300) < 0.7
    excludes = [[5], [], [0, 299], 140] + [7] * 5
    # each query's exclusions, and none (the kernels' blocks: a batch excluding rows of a segment
    # takes the path of a top k a query)
    for exclude, mask, k in itertools.product((excludes, None), (None, allowed), (1, 10, 250, 400)):
        found = _batch.best_k_dense_batch(segs, Q, k, mask, exclude=exclude)
        for i, (pos, vals) in enumerate(found):
            ex = np.zeros(300, dtype=bool)
            if exclude is not None:
                ex[np.atleast_1d(exclude[i]).astype(int)] = True
            ok = ~ex if mask is None else mask & ~ex
            ref_pos, ref_vals = best_k(segs, None, Q[i], None, False, k, ok)
            assert np.array_equal(pos, ref_pos)
            assert np.array_equal(vals, ref_vals)


def test_other_indexes_keep_the_one_at_a_time_path():
    dense = _segment(np.ones((4, 3), dtype=np.float32), np.arange(4))
    rows = QueryRows([None] * 5, np.ones((5, 3)), None)
    assert _batch.dense_batch_applies([dense], rows, False)
    assert not _batch.dense_batch_applies([dense], rows, True)                              # distance
    assert not _batch.dense_batch_applies([dense], QueryRows([None] * 5, None, None), False)  # no dense part
    mixed_rows = QueryRows([None] * 4 + [(np.array([0]), np.array([1.0]))], np.ones((5, 3)), None)
    assert not _batch.dense_batch_applies([dense], mixed_rows, False)                       # a sparse part
    sparse_seg = SimpleNamespace(n=4, dense=np.ones((4, 3), dtype=np.float32), indptr=np.zeros(2, dtype=np.int64))
    assert not _batch.dense_batch_applies([dense, sparse_seg], rows, False)                 # posting lists

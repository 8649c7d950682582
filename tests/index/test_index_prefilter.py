"""The int8 copy that a large dense segment is scanned through first (learnsim.index._prefilter):
the same hits and scores as the full float32 scan, whatever the rows, the query and the filter."""
import numpy as np
import pytest

from learnsim.index import _kernels as K
from learnsim.index import _prefilter as P

pytest.importorskip("numba")


class _Seg:
    def __init__(self, D):
        self.dense, self.n = np.ascontiguousarray(D), D.shape[0]


@pytest.fixture
def often(monkeypatch):
    """A process that searches often (a server): the kernels and the int8 copy are used."""
    monkeypatch.setenv("LEARNSIM_NUMBA", "1")
    monkeypatch.delenv("LEARNSIM_PREFILTER", raising=False)
    monkeypatch.setattr(K, "_searches", [K.WARM_SEARCHES])
    monkeypatch.setattr(P, "PREFILTER_MIN_ROWS", 100)
    monkeypatch.setattr(P, "PREFILTER_MIN_SEGMENT_ROWS", 100)


def _full_scan(D, q, k, allowed=None):
    seg = _Seg(D)
    seg._prefilter = None
    kernels = K._kernels(10 ** 9)
    pos, vals = np.empty(k, dtype=np.int64), np.empty(k, dtype=np.float32)
    mask, use = K._mask(allowed)
    n = kernels["dots_at"](seg.dense, np.asarray(q, dtype=np.float32), np.flatnonzero(mask), use, k, pos, vals)
    return pos[:n], vals[:n].astype(np.float64)


def _rows(kind, rng, n=3000, d=48):
    if kind == "unit":
        D = rng.standard_normal((n, d))
        D /= np.linalg.norm(D, axis=1, keepdims=True)
    elif kind == "clustered":
        # near-duplicates: many candidates within the error bound of the k-th best
        centres = rng.standard_normal((5, d))
        D = centres[rng.integers(0, 5, n)] + 1e-3 * rng.standard_normal((n, d))
    elif kind == "skewed":
        # one dimension with a wide range (a coarse step), the others narrow
        D = rng.standard_normal((n, d)) * np.r_[100.0, np.full(d - 1, 0.01)]
    else:   # "ties": repeated rows, so that equal scores must go to the lower row
        D = np.repeat(rng.standard_normal((n // 10, d)), 10, axis=0)
    return D.astype(np.float32)


@pytest.mark.parametrize("kind", ["unit", "clustered", "skewed", "ties"])
@pytest.mark.parametrize("k", [1, 10, 100])
def test_prefiltered_hits_are_the_full_scans(often, kind, k):
    rng = np.random.default_rng(len(kind) * 100 + k)
    D = _rows(kind, rng)
    seg = _Seg(D)
    for trial in range(8):
        q = D[rng.integers(0, D.shape[0])] if trial % 2 else rng.standard_normal(D.shape[1])
        allowed = None if trial < 4 else rng.random(D.shape[0]) < (0.02 if trial == 7 else 0.5)
        pos, vals = K.dense_top_k(seg, q, k, allowed)
        assert isinstance(seg._prefilter, P.Int8Rows)
        want_pos, want_vals = _full_scan(D, q, k, allowed)
        assert pos.tolist() == want_pos.tolist()
        assert np.array_equal(vals, want_vals)


def test_the_error_bound_is_measured_and_holds(often):
    rng = np.random.default_rng(7)
    D = _rows("skewed", rng)
    rows = P.Int8Rows(D)
    # the codes in blocks of P.BLOCK rows, the last one padded
    assert rows.codes.dtype == np.int8 and rows.codes.shape == D.shape
    assert D.size <= rows.nbytes < D.size + P.BLOCK * D.shape[1]
    back = rows.center + rows.scale * rows.codes
    assert np.all(np.abs(D - back) <= rows.error + 1e-12)
    assert np.all(rows.error <= rows.scale / 2 * (1 + 1e-6))


@pytest.mark.parametrize("kind", ["unit", "skewed"])
def test_the_querys_weights_offset_and_margin(often, kind):
    """The one call that prepares a query (the kernel) gives the module's bound: float32 weights
    q_j s_j, the offset sum q_j c_j, and the margin 2 sum |q_j| e_j plus the rounding term."""
    rng = np.random.default_rng(len(kind))
    D = _rows(kind, rng)
    rows = P.Int8Rows(D)
    q = rng.standard_normal(D.shape[1]).astype(np.float32)
    weights = np.full(D.shape[1], np.nan, dtype=np.float32)
    base, margin = K._kernels(10 ** 9)["q8_prepare"](q, rows.scale, rows.center, rows.error, rows._rounding_terms,
                                                      weights)
    q64, d = q.astype(np.float64), D.shape[1]
    assert np.array_equal(weights, (q64 * rows.scale).astype(np.float32))
    want_base = float(q64 @ rows.center)
    assert base == pytest.approx(want_base, rel=1e-6, abs=1e-6)
    eps = float(np.abs(q64) @ rows.error)
    rounding = 4.0 * (d + 2) * 2.0 ** -24 * (float(np.abs(q64) @ (127 * rows.scale + np.abs(rows.center)
                                                                     + rows.magnitude)) + abs(want_base))
    assert margin == pytest.approx(2 * eps + rounding, rel=1e-9)
    assert margin >= 2 * eps > 0


@pytest.mark.parametrize("n", [1, P.BLOCK - 1, P.BLOCK, 3 * P.BLOCK + 5, 9000])
@pytest.mark.parametrize("d", [16, 17, 19, 100])
def test_the_blocks_sum_each_rows_codes(often, n, d):
    """The blocked kernel's approximate scores are each row's weighted codes summed (any d: the
    four-at-a-time passes and the rest), the padding never read as a row."""
    rng = np.random.default_rng(n + d)
    D = rng.standard_normal((n, d)).astype(np.float32)
    rows = P.Int8Rows(D)
    assert not rows.blocks.transpose(0, 2, 1).reshape(-1, d)[n:].any()
    w = rng.standard_normal(d).astype(np.float32)
    out = np.full(rows.blocks.shape[0] * P.BLOCK, np.nan, dtype=np.float32)
    K._kernels(10 ** 9)["q8_blocks"](rows.blocks, w, np.float32(0.25), out)
    want = 0.25 + rows.codes.astype(np.float64) @ w.astype(np.float64)
    assert np.allclose(out[:n], want, rtol=1e-5, atol=1e-3 * np.abs(w).sum())
    assert np.all(out[n:] == np.float32(0.25))          # padded rows: the base alone


def test_fewer_allowed_rows_than_k(often):
    rng = np.random.default_rng(1)
    D = _rows("unit", rng)
    allowed = np.zeros(D.shape[0], dtype=bool)
    allowed[[5, 17, 2999]] = True
    pos, vals = K.dense_top_k(_Seg(D), D[17], 10, allowed)
    assert sorted(pos.tolist()) == [5, 17, 2999] and pos[0] == 17


def test_no_copy_where_it_does_not_pay(monkeypatch, often):
    rng = np.random.default_rng(2)
    D = _rows("unit", rng)
    seg = _Seg(D)
    monkeypatch.setattr(K, "_searches", [0])          # a one-off search (the command line)
    assert K.dense_top_k(seg, D[0], 5) is not None and getattr(seg, "_prefilter", None) is None
    assert P.prefilter_of(seg, often=False) is None
    monkeypatch.setenv("LEARNSIM_PREFILTER", "0")
    assert P.prefilter_of(seg, often=True) is None
    monkeypatch.delenv("LEARNSIM_PREFILTER")
    assert P.prefilter_of(_Seg(D.astype(np.float64)), often=True) is None     # float64 rows: scanned as they are
    assert P.prefilter_of(_Seg(D[:, :8]), often=True) is None                 # few dimensions
    # an index whose rows stay in the cache, or a segment too small for the copy's fixed cost
    monkeypatch.setattr(P, "PREFILTER_MIN_ROWS", 10_000)
    assert P.prefilter_of(seg, often=True, n_total=D.shape[0]) is None
    assert P.prefilter_of(seg, often=True, n_total=10_000) is not None        # one segment of a larger index
    seg._prefilter = None
    monkeypatch.setattr(P, "PREFILTER_MIN_ROWS", 100)
    monkeypatch.setattr(P, "PREFILTER_MIN_SEGMENT_ROWS", D.shape[0] + 1)
    assert P.prefilter_of(seg, often=True, n_total=10 ** 6) is None
    monkeypatch.setattr(P, "PREFILTER_MIN_SEGMENT_ROWS", 100)
    assert P.prefilter_of(seg, often=True) is not None


def test_an_index_searched_often_gives_the_same_hits(tmp_path, monkeypatch):
    """Through Index.search: the hits of a fresh process (no kernels, no copy) and of one that
    searches often (kernels and the int8 copy) are the same documents with the same scores."""
    import learnsim
    from learnsim.index import Index

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(60)]
    texts = [" ".join(rng.choice(words, 8)) for _ in range(400)]
    model = learnsim.fit(texts, clusters=[i % 4 for i in range(400)], method="film", baseline_holdout=None)
    index = Index.build(tmp_path / "idx", model, texts, ann="exact")
    queries = [" ".join(rng.choice(words, 3)) for _ in range(30)]
    monkeypatch.setenv("LEARNSIM_NUMBA", "0")
    before = [[(h["id"], h["score"]) for h in index.search(q, k=10)] for q in queries]
    monkeypatch.setenv("LEARNSIM_NUMBA", "1")
    monkeypatch.setattr(K, "_searches", [K.WARM_SEARCHES])
    monkeypatch.setattr(P, "PREFILTER_MIN_ROWS", 100)
    monkeypatch.setattr(P, "PREFILTER_MIN_SEGMENT_ROWS", 100)
    after = [[(h["id"], h["score"]) for h in index.search(q, k=10)] for q in queries]
    assert any(getattr(s, "_prefilter", None) is not None for s in index.segments)
    for b, a in zip(before, after):
        assert [x[0] for x in b] == [x[0] for x in a] or \
            np.allclose([x[1] for x in b], [x[1] for x in a], atol=1e-6)   # float32 summation order
        assert np.allclose([x[1] for x in b], [x[1] for x in a], atol=1e-6)

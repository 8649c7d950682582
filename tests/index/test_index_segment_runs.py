"""Runs of small segments scanned as one (learnsim.index._scan.SegmentRun): the hits of the
segments one by one, on every search path; what joins a run and what does not."""
import numpy as np
import pytest

from learnsim.index import Index
from learnsim.index import _scan
from learnsim.index._scan import SegmentRun, scanned_segments

from index_models import corpus, model


def _grown(path, family, adds=(3, 1, 2, 1, 4)):
    """An index of the first 60 documents and a few small adds (fewer than MERGE_AT: no merge)."""
    texts, _, ids, meta = corpus()
    idx = Index.build(path, model(family), texts[:60], ids[:60], meta[:60])
    start = 60
    for n in adds:
        idx.add(texts[start:start + n], ids[start:start + n], meta[start:start + n])
        start += n
    return idx


def _answers(idx, texts, ids):
    one = [idx.search(q, 9) for q in texts[:12]]
    batch = idx.search(texts[12:20], 9)
    filtered = [idx.search(q, 9, filter={"half": "odd"}) for q in texts[60:66]]
    similar = [idx.more_like(i, k=7) for i in ids[62:68]]
    return [[(h["id"], h["score"]) for h in hits] for hits in one + batch + filtered + similar]


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert [i for i, _ in x] == [i for i, _ in y]
        np.testing.assert_allclose([s for _, s in x], [s for _, s in y], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("family", ["film_pairs", "film", "bm25", "mcd"])
@pytest.mark.parametrize("often", [False, True])
def test_a_run_gives_the_hits_of_its_segments_one_by_one(tmp_path, family, often, monkeypatch):
    if often:   # the kernels of a process that searches often
        pytest.importorskip("numba")
        monkeypatch.setenv("LEARNSIM_NUMBA", "1")
    texts, _, ids, _ = corpus()
    idx = _grown(tmp_path / "i", family)
    idx.delete([ids[61], ids[3]])
    scanned = idx._scanned()
    if family != "mcd":     # (MCD ranks by distance: its segments carry squared norms, never joined)
        assert any(isinstance(s, SegmentRun) for s in scanned) and len(scanned) < len(idx.segments)
    with_runs = _answers(idx, texts, ids)
    monkeypatch.setattr(_scan, "RUN_MEMBER_ROWS", 0)     # nothing joins a run
    alone = Index.open(tmp_path / "i")
    assert not any(isinstance(s, SegmentRun) for s in alone._scanned())
    _same(with_runs, _answers(alone, texts, ids))
    assert not {ids[61], ids[3]} & {i for hits in with_runs for i, _ in hits}


def test_a_run_is_kept_while_its_segments_are_and_made_again_after_an_add(tmp_path):
    texts, _, ids, meta = corpus()
    idx = _grown(tmp_path / "i", "film_pairs")
    idx.search(texts[0], 3)
    run = [s for s in idx._scanned() if isinstance(s, SegmentRun)]
    assert len(run) == 1
    idx.delete([ids[62]])                     # a delete changes no segment's rows
    idx.search(texts[0], 3)
    assert [s for s in idx._scanned() if isinstance(s, SegmentRun)] == run
    idx.add([texts[100]], [ids[100]], [meta[100]])
    assert idx.search(texts[100], 1)[0]["id"] == ids[100]
    (new,) = [s for s in idx._scanned() if isinstance(s, SegmentRun)]
    assert new is not run[0] and new.n == run[0].n + 1


def test_a_damaged_segment_is_found_through_its_run(tmp_path):
    from learnsim.exceptions import IndexDamagedError

    texts = corpus()[0]
    _grown(tmp_path / "i", "film_pairs").close()
    idx = Index.open(tmp_path / "i")
    small = [p for p in sorted((tmp_path / "i" / "segments").iterdir()) if p.name.startswith("a")][0] / "dense.npy"
    data = bytearray(small.read_bytes())
    data[-3] ^= 0xFF
    small.write_bytes(bytes(data))
    with pytest.raises(IndexDamagedError, match="dense.npy"):
        idx.search(texts[0], 5)


class _Seg:
    def __init__(self, name, n, arrays=("dense",), ann=None):
        self.name, self.n, self.dtype, self.ann_meta = name, n, np.dtype(np.float32), ann
        self._arrays = set(arrays)

    def has(self, key):
        return key in self._arrays


def test_what_joins_a_run():
    big, a, b, c = _Seg("big", 50_000), _Seg("a", 3), _Seg("b", 1), _Seg("c", 2)
    approximate, distance = _Seg("ann", 5, ann={"kind": "ivf"}), _Seg("sq", 5, arrays=("dense", "sq"))
    sparse = _Seg("sparse", 4, arrays=("indptr",))
    out = scanned_segments([big, a, b, approximate, c, distance, sparse, a, b], 100)
    assert [getattr(s, "name") for s in out] == ["big", "a+b", "ann", "c", "sq", "sparse", "a+b"]
    assert isinstance(out[1], SegmentRun) and out[1].n == 4 and out[1].members == (a, b)
    # the same members: the run made before is kept (its rows are not copied again)
    assert scanned_segments([big, a, b, big], 100, previous=[out[1]])[1] is out[1]
    grown = scanned_segments([big, a, b, c], 100, previous=[out[1]])
    assert grown[1] is not out[1] and grown[1].members == (a, b, c)
    # a run holds at most RUN_MAX_BYTES of rows (4 bytes x dimensions x rows): two of these each
    dim = _scan.RUN_MAX_BYTES // (4 * 3000 * 2)
    assert [s.n for s in scanned_segments([_Seg(f"s{i}", 3000) for i in range(5)], dim)] == [6000, 6000, 3000]
    # a segment past RUN_MEMBER_ROWS stays on its own
    assert [s.name for s in scanned_segments([a, _Seg("mid", _scan.RUN_MEMBER_ROWS + 1), b], 100)] == ["a", "mid", "b"]


def test_a_fresh_process_searching_dense_runs_does_not_import_scipy(tmp_path):
    """scipy.sparse is for sparse rows: its import was most of a CLI search of a dense index
    that had been added to (0.2-0.4 s)."""
    import subprocess
    import sys

    texts = corpus()[0]
    idx = _grown(tmp_path / "i", "film")       # (film_pairs mixes in the input cosine: posting lists)
    assert not any(seg.has("indptr") for seg in idx.segments), "FILM's rows here are dense only"
    assert any(isinstance(s, SegmentRun) for s in idx._scanned())
    expected = idx.search(texts[61], 3)[0]["id"]
    idx.close()
    code = ("import sys\nfrom learnsim.index import Index\n"
            f"print(Index.open(sys.argv[1]).search({texts[61]!r}, 3)[0]['id'], 'scipy.sparse' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "i")], capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()
    assert out == [expected, "False"]


class _Rows(_Seg):
    """A small segment with rows (dense or posting lists over 7 terms), counting the reads of them."""

    def __init__(self, name, n, sparse, seed):
        super().__init__(name, n, arrays=("indptr",) if sparse else ("dense",))
        rng = np.random.default_rng(seed)
        self.reads = 0
        if sparse:
            import scipy.sparse as sp

            csc = sp.random(n, 7, density=0.5, format="csc", dtype=np.float32, random_state=seed)
            csc.sort_indices()
            self._csc = (csc.indptr.astype(np.int64), csc.indices.astype(np.int32), csc.data)
        else:
            self._dense = rng.standard_normal((n, 5)).astype(np.float32)

    def check(self):
        return None

    def _read(self, value):
        self.reads += 1
        return value

    dense = property(lambda self: self._read(self._dense))
    indptr = property(lambda self: self._read(self._csc[0]))
    indices = property(lambda self: self._read(self._csc[1]))
    data = property(lambda self: self._read(self._csc[2]))


@pytest.mark.parametrize("sparse", [False, True])
def test_a_run_an_add_extended_copies_the_rows_of_the_run_before(sparse):
    """After an add, the new run's rows are the old run's and the new segment's, not every member
    read again; the same arrays as a run made from scratch."""
    segs = [_Rows(f"s{i}", 3 + i, sparse, i) for i in range(5)]
    first = scanned_segments(segs[:4], 5)[0]
    first.check()
    before = [s.reads for s in segs]
    grown = scanned_segments(segs, 5, previous=[first])[0]
    assert grown is not first and grown.members == tuple(segs)
    grown.check()
    assert [s.reads - b for s, b in zip(segs, before)] == [0, 0, 0, 0, 1 if not sparse else 3]
    fresh = SegmentRun(segs)
    for key in (("dense",) if not sparse else ("indptr", "indices", "data")):
        np.testing.assert_array_equal(getattr(grown, key), getattr(fresh, key))
    assert grown._base is None          # the old run is not kept alive by the new one
    # a run of before that was never searched (its rows not built): every member is read
    unbuilt = scanned_segments(segs[:3], 5)[0]
    again = scanned_segments(segs[:4], 5, previous=[unbuilt])[0]
    before = [s.reads for s in segs]
    again.check()
    assert all(s.reads > b for s, b in zip(segs[:4], before[:4]))

"""learnsim.distributed.search on a LocalCluster of 2 worker processes: a DistributedIndex built
partition by partition and searched by merging per-partition top-k lists returns the hits of a
single learnsim.index.Index over the same texts (same ids in order, scores to 1e-6) for every
model family, with ids given or not and with empty partitions; bad input and damaged partition
files get clear errors.
"""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

pytest.importorskip("dask.bag", reason="learnsim.distributed needs the dask extra (pip install learnsim[dask])")
pytest.importorskip("distributed", reason="the tests run on a distributed.LocalCluster (pip install learnsim[dask])")

import dask  # noqa: E402
import dask.bag as db  # noqa: E402

from dask_cluster import bag_of, local_client  # noqa: E402
from learnsim.distributed.search import DistributedIndex, IndexFormatError  # noqa: E402
from learnsim._utils.files import sha256_file  # noqa: E402
from learnsim.index import Index, IndexDamagedError  # noqa: E402

TOL = 1e-6
# the term-weight families (LearnedBM25, LinkLearn weights), FILM's dense cosine and a distance
# family (FILM's mixed cosine and RelativeComparisonMetric take the same paths; left out for time)
FAMILIES = ("bm25", "linklearn", "film", "mcd")


client = pytest.fixture(scope="module")(local_client)


def _corpus():
    from index_models import corpus

    return corpus()


def _model(family):
    from index_models import model

    return model(family)


def _bag(items, sizes=(0, 30, 0, 41, 1)):
    """A bag of ``items`` with empty partitions among its partitions (the rest in the last one)."""
    return bag_of(items, sizes)


def _queries():
    texts = _corpus()[0]
    return [texts[0], texts[33], texts[71], " ".join(texts[5].split()[:20] + texts[100].split()[:20]),
            "no word of the vocabulary"]


def _assert_same_hits(a, b):
    assert [h["id"] for h in a] == [h["id"] for h in b]
    assert [h["text"] for h in a] == [h["text"] for h in b]
    assert [h["rank"] for h in a] == list(range(1, len(a) + 1))
    sa, sb = np.array([h["score"] for h in a]), np.array([h["score"] for h in b])
    scale = max(1.0, float(np.abs(sb).max(initial=0.0)))
    np.testing.assert_allclose(sa, sb, rtol=0, atol=TOL * scale)


@pytest.fixture(scope="module")
def built(client, tmp_path_factory):
    """{family: (DistributedIndex, Index)} over the same texts (default dtypes, default ids)."""
    texts = _corpus()[0]
    root = tmp_path_factory.mktemp("distributed")
    out = {}
    for f in FAMILIES:
        out[f] = (DistributedIndex.build(root / f, _model(f), _bag(texts)), Index.build(root / f"{f}-one", _model(f), texts))
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_search_equals_a_single_index_over_the_same_texts(built, family):
    dist, one = built[family]
    assert dist.scoring == one.scoring and dist.column == one.column and len(dist) == len(_corpus()[0])
    # the empty partitions are left out of the manifest; the others follow one another
    assert [e["n"] for e in dist.manifest["partitions"]] == [30, 41, 1, len(dist) - 72]
    queries = _queries()
    for k in (1, 7):
        found = dist.search(queries, k=k, split_every=2)
        for a, b in zip(found, one.search(queries, k=k)):
            _assert_same_hits(a, b)
        # a query with no word of the vocabulary gets no hits (not k documents scoring alike)
        assert [len(a) for a in found] == [k] * (len(queries) - 1) + [0]
    # a str query gives one list; k beyond the collection lists every document; reopened alike
    _assert_same_hits(dist.search(queries[1], k=5), one.search(queries[1], k=5))
    assert len(dist.search(queries[0], k=10_000)) == len(dist)
    _assert_same_hits(DistributedIndex.open(dist.path).search(queries[3], k=6), one.search(queries[3], k=6))


@pytest.mark.parametrize("family", ["film", "mcd"])
def test_copies_come_back_in_the_order_of_index_search(client, tmp_path, family):
    """Copies of a text score alike up to float32 rounding, which differs between a partition's
    matrix product and the one index's (a copy's distance 0 in one, 1.5e-8 in the other): the
    copies came back in another order than Index.search gives them (the lower position first)."""
    texts = _corpus()[0]
    collection = [texts[i % 7] for i in range(60)] + texts[:40]
    dist = DistributedIndex.build(tmp_path / "dist", _model(family), _bag(collection))
    one = Index.build(tmp_path / "one", _model(family), collection)
    queries = texts[:20]
    # in this process, as without a cluster (where a script of this collection got the copies
    # in another order; how products round depends on BLAS's threads: the test below is exact)
    with dask.config.set(scheduler="sync"):
        found = dist.search(queries, k=15)
    for a, b in zip(found, one.search(queries, k=15)):
        _assert_same_hits(a, b)


def test_values_a_rounding_apart_are_a_tie_to_the_lower_position():
    from learnsim.distributed._partition import merge_best

    v = 0.6444545
    first = [(np.array([1, 8, 29]), np.array([v, v, v - 3e-8]))]
    second = [(np.array([30, 36, 43]), np.array([v + 3e-8, v, 0.5]))]
    pos, vals = merge_best([first, second], k=5)[0]
    assert pos.tolist() == [1, 8, 29, 30, 36]
    np.testing.assert_allclose(vals, [v, v, v, v, v], atol=1e-7)    # as computed, not rounded
    # values farther apart than a rounding keep their order, whatever the positions
    pos, _ = merge_best([[(np.array([1, 2]), np.array([0.5, 0.4]))], [(np.array([0]), np.array([0.45]))]], k=3)[0]
    assert pos.tolist() == [1, 0, 2]


def test_ids_given_as_a_bag_are_the_hits_ids_and_a_repeated_id_is_refused(client, tmp_path):
    texts, _, ids, _ = _corpus()
    p = _model("bm25")
    dist = DistributedIndex.build(tmp_path / "ids", p, _bag(texts), _bag(ids))
    one = Index.build(tmp_path / "one", p, texts, ids)
    for a, b in zip(dist.search(_queries(), k=6, client=client), one.search(_queries(), k=6)):
        _assert_same_hits(a, b)
    repeated = ids[:-1] + [ids[3]]
    with pytest.raises(ValueError, match=f"id '{ids[3]}' is given twice"):
        DistributedIndex.build(tmp_path / "twice", p, _bag(texts), _bag(repeated))
    assert not (tmp_path / "twice").exists()        # nothing is left behind
    with pytest.raises(ValueError, match="partitioned like the texts"):
        DistributedIndex.build(tmp_path / "parts", p, _bag(texts), db.from_sequence(ids, npartitions=2))
    with pytest.raises(ValueError, match="ids must be partitioned like the texts"):
        DistributedIndex.build(tmp_path / "sizes", p, _bag(texts), _bag(ids, sizes=(1, 29, 0, 41, 1)))
    with pytest.raises(TypeError, match="non-empty str"):
        DistributedIndex.build(tmp_path / "empty-id", p, _bag(texts), _bag([""] + ids[1:]))


def test_bad_input_gets_a_clear_error(built, tmp_path):
    texts = _corpus()[0]
    dist, _ = built["bm25"]
    for k in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="k must be a positive integer"):
            dist.search("a query", k=k)
    with pytest.raises(TypeError, match=r"queries\[1\] must be a str"):
        dist.search(["a", 3])
    assert dist.search([], k=3) == []
    p = _model("bm25")
    with pytest.raises(TypeError, match="dask.bag.Bag of str"):
        DistributedIndex.build(tmp_path / "list", p, texts)
    with pytest.raises(TypeError, match="partition 1, item 0 is bytes"):
        DistributedIndex.build(tmp_path / "bytes", p, db.from_delayed([dask.delayed(list)(["a text"]),
                                                                       dask.delayed(list)([b"bytes"])]))
    with pytest.raises(ValueError, match="at least one text"):
        DistributedIndex.build(tmp_path / "none", _model("film"), db.from_delayed([dask.delayed(list)([])]))
    with pytest.raises(FileExistsError, match="not empty"):
        DistributedIndex.build(dist.path, p, _bag(texts))
    with pytest.raises(ValueError, match="dtype must be float32 or float64"):
        DistributedIndex.build(tmp_path / "dtype", p, _bag(texts), dtype="int8")
    with pytest.raises(FileNotFoundError, match="no learnsim distributed index"):
        DistributedIndex.open(tmp_path)


def test_overwrite_replaces_a_distributed_index_only_and_only_once_the_new_one_is_whole(tmp_path):
    """overwrite=True wiped any folder holding a file named manifest.json (a persistent Index
    too), and removed the old index before building: a build that failed left nothing."""
    texts = _corpus()[0]
    p = _model("bm25")
    other = tmp_path / "project"
    other.mkdir()
    (other / "manifest.json").write_text('{"name": "my project"}')
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(FileExistsError, match="holds no distributed index"):
        DistributedIndex.build(other, p, _bag(texts), overwrite=True)
    assert (other / "notes.txt").read_text() == "keep me"
    path = tmp_path / "dist"
    DistributedIndex.build(path, p, _bag(texts))
    before = DistributedIndex.open(path).search(_queries(), k=3)
    bad = db.from_delayed([dask.delayed(list)(["a text"]), dask.delayed(list)([b"bytes"])])
    with pytest.raises(TypeError, match="is bytes"):
        DistributedIndex.build(path, p, bad, overwrite=True)
    assert DistributedIndex.open(path).search(_queries(), k=3) == before
    assert sorted(q.name for q in tmp_path.iterdir()) == ["dist", "project"]     # no building left behind
    DistributedIndex.build(path, p, _bag(texts[:20], sizes=(20,)), overwrite=True)
    assert len(DistributedIndex.open(path)) == 20


def _copy(built, family, tmp_path, name=None):
    path = tmp_path / (name or family)
    shutil.copytree(built[family][0].path, path)
    return path


def test_damaged_or_edited_partition_files_give_a_clear_error(built, tmp_path):
    # NaN in a partition's rows: found on the worker that scores it
    path = _copy(built, "bm25", tmp_path)
    data = path / "partitions" / "p000003" / "data.npy"
    arr = np.load(data)
    arr[0] = np.nan
    np.save(data, arr)
    # the segment's checksum finds the edit first (learnsim.index._segments) ...
    with pytest.raises(IndexDamagedError, match="data.npy is damaged: its sha256"):
        DistributedIndex.open(path).search(_queries(), k=3)
    # ... and with the edit's checksum recorded, the check of the values
    seg_json = data.parent / "segment.json"
    meta = json.loads(seg_json.read_text())
    meta["sha256"]["data"] = sha256_file(data)
    seg_json.write_text(json.dumps(meta))
    manifest = json.loads((path / "manifest.json").read_text())
    for entry in manifest["partitions"]:
        if entry["name"] == data.parent.name:
            entry["sha256"] = sha256_file(seg_json)
    (path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexFormatError, match="NaN or infinite"):
        DistributedIndex.open(path).search(_queries(), k=3)
    # a dense part of the wrong shape: refused at open
    path = _copy(built, "film", tmp_path, "film-dense")
    np.save(path / "partitions" / "p000001" / "dense.npy", np.zeros((3, 2), dtype=np.float32))
    with pytest.raises(IndexFormatError, match="dense.npy"):
        DistributedIndex.open(path)
    # text offsets that do not fit the texts
    path = _copy(built, "mcd", tmp_path)
    off = path / "partitions" / "p000005" / "text_offsets.npy"
    np.save(off, np.load(off)[::-1].copy())
    with pytest.raises(IndexFormatError, match="inconsistent"):
        DistributedIndex.open(path).search(_queries()[0], k=10_000)
    # a manifest whose partitions overlap, a forged model file, a missing partition
    path = _copy(built, "linklearn", tmp_path)
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["partitions"][1]["offset"] -= 1
    (path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexFormatError, match="do not follow one another"):
        DistributedIndex.open(path)
    path = _copy(built, "film", tmp_path)
    with open(path / "model.npz", "ab") as fh:
        fh.write(b"x")
    with pytest.raises(IndexFormatError, match="checksum"):
        DistributedIndex.open(path).search("a query")
    shutil.rmtree(path / "partitions" / "p000003")
    with pytest.raises(IndexFormatError, match="segment.json"):
        DistributedIndex.open(path)
    (path / "manifest.json").write_text("{not json")
    with pytest.raises(IndexFormatError, match="cannot read manifest.json"):
        DistributedIndex.open(path)


def test_distance_queries_in_a_batch_equal_one_at_a_time(built, monkeypatch):
    """A distance model's (MCD) batch of queries is scored by two matrix products per block of
    queries in each partition (_distance_batch), with the hits of one query at a time."""
    from learnsim.distributed import _partition

    dist, _ = built["mcd"]
    m = {key: dist.manifest.get(key) for key in ("kind", "n_features", "dense_dim")}
    assert m["kind"] == "distance"
    queries = _queries() * 2
    rows = dist.query_rows(queries)
    for entry in dist.manifest["partitions"]:
        batch = _partition.search_partition(str(dist.path), entry, m, rows, 7)
        for i, q in enumerate(queries):
            pos, vals = _partition.search_partition(str(dist.path), entry, m, dist.query_rows([q]), 7)[0]
            np.testing.assert_array_equal(batch[i][0], pos)
            np.testing.assert_allclose(batch[i][1], vals, rtol=0, atol=1e-6 * max(1.0, np.abs(vals).max()))
    # blocks of one query give the same
    last = _partition.search_partition(str(dist.path), dist.manifest["partitions"][-1], m, rows, 7)
    monkeypatch.setattr(_partition, "_DISTANCE_BLOCK_SCORES", 1)
    again = _partition.search_partition(str(dist.path), dist.manifest["partitions"][-1], m, rows, 7)
    for a, b in zip(again, last):
        np.testing.assert_array_equal(a[0], b[0])


def test_a_model_mixing_bm25_in_searches_as_a_single_index(client, tmp_path):
    """Normalised BM25 mixed with FILM's learned cosine over term vectors (issue 42): the collection
    vocabulary is the BM25 part's (its "lexical" vectoriser), counted partition by partition."""
    from bm25_models import QUERIES, collection, mixed

    p, texts = mixed("term_film", 0.4), collection()
    dist = DistributedIndex.build(tmp_path / "dist", p, _bag(texts, sizes=(0, 10, 0, 11, 1)))
    one = Index.build(tmp_path / "one", p, texts)
    assert dist.scoring == one.scoring == p.scoring
    for a, b in zip(dist.search(QUERIES, k=5), one.search(QUERIES, k=5)):
        _assert_same_hits(a, b)


def test_a_model_with_a_reranker_searches_as_a_single_index(client, tmp_path):
    """A FILM fitted on pairs keeps a re-ranker: Index.search re-scores the first stage's best
    max(k, n_candidates); the distributed search gave the first stage's k best alone (other
    documents, in another order, with first-stage scores)."""
    import warnings

    import learnsim.fitting
    from index_models import negation_collection

    rows = negation_collection(n_groups=120)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = learnsim.fitting.fit(pairs=rows, method="film", n_components=8, max_iter=30).pipeline
    assert p.rerank is not None
    texts = list(dict.fromkeys(t for a, b, _ in rows for t in (a, b)))
    queries = [a for a, _, _ in rows[::2][:8]] + ["no word of the vocabulary"]
    dist = DistributedIndex.build(tmp_path / "dist", p, _bag(texts, sizes=(0, 50, 0, 100, 1)))
    one = Index.build(tmp_path / "one", p, texts)
    for k in (1, 5):
        for a, b in zip(dist.search(queries, k=k), one.search(queries, k=k)):
            _assert_same_hits(a, b)
            assert [h["first_stage_rank"] for h in a] == [h["first_stage_rank"] for h in b]
    one.close()
    # beyond n_candidates the re-ranker re-scores k (Reranker's rule), as Pipeline.search does
    k = p.rerank.n_candidates + 3
    found = dist.search(queries, k=k)
    assert found[-1] == []                      # the query without a known word: no hits
    for query, a in zip(queries[:-1], found):
        b = [dict(h, id=str(h["corpus_id"] + 1), text=texts[h["corpus_id"]]) for h in p.search(query, texts, k=k)]
        _assert_same_hits(a, b)
        assert [h["first_stage_rank"] for h in a] == [h["first_stage_rank"] for h in b]


def test_a_lone_character_of_a_spaceless_script_is_read_as_index_search_reads_it(client, tmp_path):
    """Character bigrams make 猫 alone a term no document has (they hold 子猫, 猫が): Index.search
    and Pipeline.search read it as the terms holding it (learnsim.text.LoneCharacters); the
    distributed search gave no hits."""
    import warnings

    import learnsim
    from cjk_texts import CHINESE, JAPANESE

    texts, labels = [], []
    for language in (JAPANESE, CHINESE):
        for topic, some in language.items():
            texts += some
            labels += [topic] * len(some)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = learnsim.fit(texts, clusters=labels, baseline_holdout=None)
    queries = ["猫", "子", "天", "猫が", "东京", "cat"]
    dist = DistributedIndex.build(tmp_path / "dist", p, _bag(texts, sizes=(0, 10, 0, 20, 1)))
    one = Index.build(tmp_path / "one", p, texts)
    found = dist.search(queries, k=3)
    assert all(found[:4])
    for a, b in zip(found, one.search(queries, k=3)):
        _assert_same_hits(a, b)
    one.close()

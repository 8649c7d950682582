"""A partition that is one str (or bytes, or a dict) rather than a sequence of them (red team,
round 82). A partition is read as list(partition): one of "hello world" was eleven one-character
texts, one of ids "abc" three ids 'a', 'b', 'c', and a dict its keys, without a word said (the
vocabulary was then empty, or the wrong ids were stored). Such a partition is now a TypeError
naming the partition and what it is, on every pass that reads texts or ids."""
from __future__ import annotations

import shutil
import warnings

import pytest

pytest.importorskip("dask.bag", reason="learnsim.distributed needs the dask extra (pip install learnsim[dask])")

import dask  # noqa: E402
import dask.bag as db  # noqa: E402

from learnsim.distributed import DistributedIndex, fit_vectorizer, vectorize  # noqa: E402

TEXTS = ["how do I reset my password", "forgot my password", "I was charged twice",
         "refund for a double charge", "app crashes on start", "crash after the update"]


def _bag(*partitions):
    return db.from_delayed([dask.delayed(lambda p=p: p)() for p in partitions])


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.mark.parametrize("odd", ["hello world password", b"hello world", {"password": 1, "reset": 2}])
def test_a_partition_that_is_not_a_sequence_of_texts_is_refused(odd):
    bag = _bag(TEXTS[:3], odd)
    what = type(odd).__name__
    with pytest.raises(TypeError, match=f"partition 1 is a {what}, not a sequence of texts"):
        fit_vectorizer(bag, analyzer="cjk", cjk_unigrams=True)
    with pytest.raises(TypeError, match=f"partition 1 is a {what}, not a sequence of texts"):
        fit_vectorizer(bag, hashing=64)
    vec = fit_vectorizer(_bag(TEXTS[:3], TEXTS[3:]))
    with pytest.raises(TypeError, match=f"partition 1 is a {what}, not a sequence of texts"):
        vectorize(bag, vec).compute()


def test_an_ids_partition_that_is_one_str_is_refused(tmp_path):
    import learnsim

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = learnsim.fit(TEXTS, clusters=["a", "a", "b", "b", "c", "c"])
    texts = _bag(TEXTS[:3], TEXTS[3:])
    with pytest.raises(TypeError, match="partition 1 of ids is a str, not a sequence of ids"):
        DistributedIndex.build(tmp_path / "index", model, texts, ids=_bag(["t0", "t1", "t2"], "xyz"))
    shutil.rmtree(tmp_path / "index", ignore_errors=True)
    with pytest.raises(TypeError, match="partition 1 is a str, not a sequence of texts"):
        DistributedIndex.build(tmp_path / "index", model, _bag(TEXTS[:3], "abc"), ids=_bag(["t0", "t1", "t2"],
                                                                                         ["t3", "t4", "t5"]))
    # partitions of lists, as before
    shutil.rmtree(tmp_path / "index", ignore_errors=True)
    index = DistributedIndex.build(tmp_path / "index", model, texts, ids=_bag(["t0", "t1", "t2"], ["t3", "t4", "t5"]))
    assert [h["id"] for h in index.search("forgot my password", k=1)] == ["t1"]

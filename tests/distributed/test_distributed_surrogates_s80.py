"""DistributedIndex.build on texts or ids holding a lone surrogate ("caf\\udce9"), as
learnsim.index.Index.build takes the same list: Index.build refuses either (a TextError, a
ValueError naming the text), before anything is written. The distributed build stored ids with
a lone surrogate, and refused such a text only when its model's collection vocabulary read it,
naming its position inside its partition as if it were the collection's ("texts[2]" for the
31st text). Now it refuses both, naming the partition and the item, and leaves no index; whole
characters (accented, CJK, astral) are kept as Index.build keeps them. Computed in this process
(dask's synchronous scheduler): the same code runs on a cluster's workers."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("dask.bag", reason="learnsim.distributed needs the dask extra (pip install learnsim[dask])")

import dask  # noqa: E402
import dask.bag as db  # noqa: E402
from index_models import corpus, model  # noqa: E402

from learnsim._utils.inputs import TextError  # noqa: E402
from learnsim.distributed import DistributedIndex  # noqa: E402
from learnsim.index import Index  # noqa: E402

N, PARTS = 40, 3      # 14, 14 and 12 texts: the 31st is item 2 of partition 2


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _texts_ids():
    texts, _, ids, _ = corpus()
    return list(texts[:N]), list(ids[:N])


@pytest.mark.parametrize("family", ["bm25", "mcd"])
def test_a_text_with_a_lone_surrogate_is_refused_as_index_build_refuses_it(tmp_path, family):
    texts, ids = _texts_ids()
    texts[30] = "caf\udce9 " + texts[30]
    with pytest.raises(TextError, match="lone surrogate"):
        Index.build(tmp_path / "one", model(family), texts, ids)
    with pytest.raises(TextError) as caught:
        DistributedIndex.build(tmp_path / "dist", model(family), db.from_sequence(texts, npartitions=PARTS),
                               db.from_sequence(ids, npartitions=PARTS))
    message = str(caught.value)
    assert "partition 2, item 2" in message and "U+DCE9" in message and "texts" in message, message
    assert not (tmp_path / "dist").exists() or not any((tmp_path / "dist").iterdir())


def test_an_id_with_a_lone_surrogate_is_refused_as_index_build_refuses_it(tmp_path):
    texts, ids = _texts_ids()
    ids[16] = "id-\ud800"
    with pytest.raises(TextError, match="lone surrogate"):
        Index.build(tmp_path / "one", model("bm25"), texts, ids)
    with pytest.raises(TextError) as caught:
        DistributedIndex.build(tmp_path / "dist", model("bm25"), db.from_sequence(texts, npartitions=PARTS),
                               db.from_sequence(ids, npartitions=PARTS))
    message = str(caught.value)
    assert "ids" in message and "partition 1, item 2" in message and "U+D800" in message, message
    assert not (tmp_path / "dist").exists() or not any((tmp_path / "dist").iterdir())


def test_whole_characters_are_kept_as_index_build_keeps_them(tmp_path):
    texts, ids = _texts_ids()
    texts[30] = "café 東京 \U0001F600 " + texts[30]
    ids[16] = "id-é-\U0001F600"
    one = Index.build(tmp_path / "one", model("bm25"), texts, ids)
    dist = DistributedIndex.build(tmp_path / "dist", model("bm25"), db.from_sequence(texts, npartitions=PARTS),
                                  db.from_sequence(ids, npartitions=PARTS))
    try:
        for q in (texts[30][:40], texts[16][:40]):
            a, b = one.search(q, 5), dist.search(q, 5)
            assert [h["id"] for h in a] == [h["id"] for h in b]
            assert [h["text"] for h in a] == [h["text"] for h in b]
            assert [h["score"] for h in a] == pytest.approx([h["score"] for h in b], rel=1e-5)
    finally:
        one.close()

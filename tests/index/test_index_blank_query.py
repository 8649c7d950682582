"""A query none of whose words the model knows (stop 59): every document would score the same,
so any k of them would be an arbitrary answer. ``Index.search``, ``Index.more_like``,
``Pipeline.search`` and the service give it no hits, as Elasticsearch and Pyserini do; a query
with some known words is answered as its known words alone are.
"""
from __future__ import annotations

import warnings

import pytest

from index_models import FAMILIES, corpus, model
from learnsim.index import Index
from learnsim.index._query import QueryRows

UNKNOWN = "zqxv wuffle brrnk"        # no word of the collection's vocabulary (w0 ... w399)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    root = tmp_path_factory.mktemp("blank")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {f: Index.build(root / f, model(f), texts, ids, meta) for f in FAMILIES}


def _ids(hits):
    return [h["id"] for h in hits]


@pytest.mark.parametrize("family", FAMILIES)
def test_a_query_of_unknown_words_has_no_hits(built, family):
    index = built[family]
    assert index.search(UNKNOWN, k=5) == []
    # with a filter, and in a list with known queries (FILM's batched scan takes 4 or more)
    assert index.search(UNKNOWN, k=5, filter={"half": "even"}) == []
    texts = corpus()[0]
    queries = [texts[0], UNKNOWN, texts[30], texts[60], texts[90]]
    found = index.search(queries, k=5)
    assert [len(h) for h in found] == [5, 0, 5, 5, 5]
    for q, hits in zip(queries, found):
        if q != UNKNOWN:
            assert _ids(hits) == _ids(index.search(q, k=5))


@pytest.mark.parametrize("family", FAMILIES)
def test_unknown_words_beside_known_ones_change_nothing(built, family):
    index = built[family]
    known = " ".join(corpus()[0][7].split()[:6])
    alone, mixed = index.search(known, k=8), index.search(f"{UNKNOWN} {known}", k=8)
    assert len(alone) == 8
    assert _ids(mixed) == _ids(alone)
    assert [h["score"] for h in mixed] == pytest.approx([h["score"] for h in alone], rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("family", ["film", "bm25", "mcd"])
def test_more_like_a_document_of_unknown_words_has_no_hits(built, family, tmp_path):
    import shutil

    path = tmp_path / "idx"
    shutil.copytree(built[family].path, path)
    index = Index.open(path)
    index.add([UNKNOWN], ids=["new"])
    assert index.more_like("new", k=5) == []
    assert len(index.more_like("d3", k=5)) == 5
    index.close()


def test_blank_rows_are_those_zero_in_every_part():
    import numpy as np

    empty, some = (np.zeros(0, dtype=np.int64), np.zeros(0)), (np.array([3]), np.array([0.5]))
    zero_weight = (np.array([3]), np.array([0.0]))
    assert QueryRows([empty, some, zero_weight, None], None, None).blank() == [True, False, True, True]
    dense = np.array([[0.0, 0.0], [0.0, 1e-30], [0.0, 0.0]])
    assert QueryRows([None] * 3, dense, np.array([0.0, 0.0, 2.0])).blank() == [True, False, False]


@pytest.mark.parametrize("family", ["film", "mcd", "bm25"])
def test_pipeline_search_gives_a_query_of_unknown_words_no_hits(family):
    texts = corpus()[0]
    p = model(family)
    found = p.search([texts[0], UNKNOWN, f"{UNKNOWN} {texts[0]}"], texts, k=4)
    assert [len(h) for h in found] == [4, 0, 4]
    assert [h["corpus_id"] for h in found[2]] == [h["corpus_id"] for h in found[0]]
    assert p.search(UNKNOWN, texts, k=4) == []


def test_a_document_no_search_can_find_is_stored_with_a_warning(tmp_path):
    # the CLI refuses such a line and the service such a document; a library call stores it and
    # says so, at the caller's line, naming the first
    texts = corpus()[0]
    index = Index.build(tmp_path / "index", model("bm25"), texts[:60], ids=[f"d{i}" for i in range(60)])
    with pytest.warns(UserWarning, match=r"2 of the 3 texts have no letter or digit \(first: texts\[0\] = ''\)") as got:
        index.add(["", texts[0], "\u2192 ?!"], ids=["blank", "again", "arrow"])      # (an emoji is a term)
    assert got[0].filename == __file__
    assert index.document("arrow")[0] == "\u2192 ?!" and index.search("blank", k=3) == index.search("blank", k=3)
    for call in (lambda: index.upsert(["..."], ids=["dots"]), lambda: index.update(["again"], ["   "])):
        with pytest.warns(UserWarning, match="no search can find them"):
            call()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        index.add([texts[1]], ids=["fine"])          # a text with words: no warning
        Index.build(tmp_path / "quiet", model("bm25"), texts[:40]).close()
    with pytest.warns(UserWarning, match="1 of the 41 texts"):
        Index.build(tmp_path / "loud", model("bm25"), texts[:40] + [" "]).close()
    index.close()

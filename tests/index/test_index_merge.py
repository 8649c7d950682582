"""Many small adds: the newest small segments are merged, and the hits stay those of one build."""
import numpy as np
import pytest

from learnsim.index import Index
from learnsim.index import core

from index_models import corpus, model


@pytest.mark.parametrize("family", ["film_pairs", "bm25"])
def test_small_adds_are_merged_and_search_is_unchanged(tmp_path, family, monkeypatch):
    texts, _, ids, meta = corpus()
    pipeline = model(family)
    whole = Index.build(tmp_path / "whole", pipeline, texts, ids, meta)
    grown = Index.build(tmp_path / "grown", pipeline, texts[:40], ids[:40], meta[:40])
    for start in range(40, len(texts), 4):       # 20 adds of 4 documents
        grown.add(texts[start:start + 4], ids[start:start + 4], meta[start:start + 4])
        assert len(grown.manifest["segments"]) <= 1 + core.MERGE_AT <= 11      # never one per add
    grown.reindex()
    reopened = Index.open(tmp_path / "grown")
    for q in texts[:10]:
        a, b = whole.search(q, 7), reopened.search(q, 7)
        assert [h["id"] for h in a] == [h["id"] for h in b]
        assert np.allclose([h["score"] for h in a], [h["score"] for h in b], atol=1e-6)


def test_merging_keeps_deleted_rows_masked(tmp_path):
    texts, _, ids, meta = corpus()
    idx = Index.build(tmp_path / "i", model("mcd"), texts[:30], ids[:30], meta[:30])
    for start in range(30, 30 + 4 * core.MERGE_AT, 4):
        idx.add(texts[start:start + 4], ids[start:start + 4])
        idx.delete([ids[start]])
    assert len(idx.manifest["segments"]) < core.MERGE_AT <= 10
    gone = {ids[s] for s in range(30, 30 + 4 * core.MERGE_AT, 4)}
    for q in texts[30:40]:
        assert not gone & {h["id"] for h in idx.search(q, 60)}

"""Documents with no term of the model's vocabulary (a zero row): under a distance model their
distance to every query is the query's own norm, so they stood near every query (first for most
queries of a small index); under FILM's cosine they scored 0, above a document sharing a word
whose learned cosine is below 0 (tests/film/test_film_search_placeless.py). ``Index.build`` and
``Index.add`` name them in one warning, and a search under every model leaves them out, the
index as ``Pipeline.search``."""
from __future__ import annotations

import warnings

import pytest

from index_models import corpus, model

from learnsim.index import Index, PlacelessWarning

pytestmark = pytest.mark.filterwarnings("ignore::learnsim.baseline.BaselineWarning")

# no term of the synthetic corpus' vocabulary (nor of the six texts below)
PLACELESS = ["10㎏の米を買いました", "zzqx vvkq"]
SIX = ["how do I reset my password", "forgot my password", "I was charged twice",
       "refund for a double charge", "app crashes on start", "crash after the update"]
QUERIES = ["reset password", "charged twice refund", "app crash", "double charge", "update"]


def _six_mcd():
    import learnsim

    # the learned distance these tests are about: three clusters are too few to check it, and a
    # checked fit ends as the strongest baseline (tests/test_fit_few_clusters_s80.py)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return learnsim.fit(SIX, clusters=[0, 0, 1, 1, 2, 2], baseline_holdout=None)


def _build(path, pipeline, texts, ids):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        index = Index.build(path, pipeline, texts, ids=ids)
    return index, [w.message for w in caught if "vocabulary" in str(w.message)]


def test_build_names_the_documents_without_a_term_and_search_leaves_them_out(tmp_path):
    pipeline = _six_mcd()
    texts = SIX + PLACELESS[:1]
    index, notes = _build(tmp_path / "i", pipeline, texts, [f"t{i}" for i in range(len(texts))])
    assert len(notes) == 1 and "1 of the 7" in str(notes[0]) and notes[0].ids == ["t6"]
    assert isinstance(notes[0], PlacelessWarning) and "'t6'" in notes[0].naming_ids()
    for q in QUERIES:
        hits = [h["id"] for h in index.search(q, k=7)]
        assert "t6" not in hits
        assert sorted(hits) == sorted(f"t{i}" for i in range(6))        # every other document
        # the in-memory search answers the same
        mem = pipeline.search([q], texts, k=7)[0]
        assert [f"t{h['corpus_id']}" for h in mem] == hits


def test_build_without_such_documents_says_nothing(tmp_path):
    _, notes = _build(tmp_path / "i", _six_mcd(), SIX, None)
    assert notes == []


@pytest.mark.parametrize("family", ["mcd", "relative", "film"])
def test_add_names_them_and_a_search_never_returns_them(tmp_path, family):
    texts, _, ids, _ = corpus()
    index, notes = _build(tmp_path / "i", model(family), texts, ids)
    assert notes == []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        added = index.add(PLACELESS + ["a normal text " + texts[0]], ids=["p0", "p1", "ok"])
    notes = [w.message for w in caught if "vocabulary" in str(w.message)]
    assert added == ["p0", "p1", "ok"]
    assert len(notes) == 1 and "2 of the 3" in str(notes[0]) and notes[0].ids == ["p0", "p1"]
    assert (notes[0].n_documents, notes[0].n_written) == (2, 3) and "'p0', 'p1'" in notes[0].naming_ids()
    hits = [h["id"] for h in index.search(texts[5], k=len(texts) + 3)]
    assert not {"p0", "p1"} & set(hits) and "ok" in hits and len(hits) == len(texts) + 1


def test_update_and_upsert_name_them_too(tmp_path):
    index, _ = _build(tmp_path / "i", _six_mcd(), SIX, None)
    for call in (lambda: index.upsert(["zzqx vvkq"], ids=["z"]), lambda: index.update(["2"], ["qqqz"])):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        assert [str(w.message) for w in caught if "vocabulary" in str(w.message)], call
    assert not {"z", "2"} & {h["id"] for h in index.search("forgot my password", k=10)}


def test_repeated_writes_warn_once_with_the_same_message(tmp_path):
    """The warning named the written ids in its text, so a long-running process adding such
    documents one by one got a new warning line, and a new entry of its warnings registry, at
    every add (a log flood, memory without bound). The ids are the warning's attribute now: the
    text is that of every write of as many documents, shown once under Python's default filter."""
    index, _ = _build(tmp_path / "i", _six_mcd(), SIX, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for i in range(5):
            index.add([f"zzunknown{i}"], ids=[f"z{i}"])
    shown = [w for w in caught if issubclass(w.category, PlacelessWarning)]
    assert len(shown) == 1 and shown[0].message.ids == ["z0"], [str(w.message) for w in caught]
    assert "z0" not in str(shown[0].message)
    # every add warned the same text: each would have been shown under "always"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(5, 8):
            index.add([f"zzunknown{i}"], ids=[f"z{i}"])
    said = [w.message for w in caught if isinstance(w.message, PlacelessWarning)]
    assert [w.ids for w in said] == [["z5"], ["z6"], ["z7"]] and len({str(w) for w in said}) == 1

"""Arguments of the Python API that were taken silently or answered by an internal error (stop
68's sweep of the API): a dict or a set where positions pair texts with ids and labels, bytes
where a text goes, a path that is not one, a collection with no word the model counts, and the
one-document collection of a model that is the tf.idf cosine."""
from __future__ import annotations

import warnings

import pytest

import learnsim
from learnsim.index import Index

TEXTS = ["reset my password", "forgot my password", "charged twice for one order", "refund a double charge",
         "app crashes at start", "crash after the update"]
LABELS = [0, 0, 1, 1, 2, 2]


@pytest.fixture(scope="module")
def cosine_model():
    """A clusters fit on too few texts to check: whatever it keeps, a model over term counts."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from learnsim._baseline_models import baseline_pipeline

        return baseline_pipeline("cosine", TEXTS)


@pytest.fixture(scope="module")
def model():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return learnsim.fit(TEXTS, clusters=LABELS, baseline_holdout=None)


def test_a_dict_of_texts_is_refused_not_read_as_its_keys(model, tmp_path):
    with pytest.raises(TypeError, match=r"texts must be a list of texts; got a dict.*ids=list\(d\)"):
        Index.build(tmp_path / "a", model, {"d1": "refund please", "d2": "order late"})
    index = Index.build(tmp_path / "b", model, TEXTS)
    with pytest.raises(TypeError, match="got a dict"):
        index.add({"d3": "my parcel is missing"})
    assert len(index) == len(TEXTS)


@pytest.mark.parametrize("unordered", [set, frozenset])
def test_sets_where_positions_pair_values_are_refused(model, tmp_path, unordered):
    ids = [f"t{i}" for i in range(len(TEXTS))]
    with pytest.raises(TypeError, match=r"ids must be a list of ids; got a (set|frozenset), which has no order"):
        Index.build(tmp_path / "a", model, TEXTS, ids=unordered(ids))
    with pytest.raises(TypeError, match="texts must be a list of texts; got a"):
        learnsim.fit(unordered(TEXTS), clusters=LABELS)
    with pytest.raises(TypeError, match="clusters must be a list of labels; got a"):
        learnsim.fit(TEXTS, clusters=unordered(LABELS))
    with pytest.raises(TypeError, match="corpus must be a list of texts; got a"):
        model.search(["refund"], unordered(TEXTS), k=1)
    index = Index.build(tmp_path / "b", model, TEXTS, ids=ids)
    with pytest.raises(TypeError, match="ids must be a list of ids"):
        index.update(unordered(ids[:2]), ["AAA", "BBB"])
    index.delete(unordered(ids[:2]))           # a delete has no order to lose
    assert len(index) == len(TEXTS) - 2


@pytest.mark.parametrize("query", [b"refund", bytearray(b"refund")])
def test_a_bytes_query_is_named_as_bytes(model, tmp_path, query):
    index = Index.build(tmp_path / "a", model, TEXTS)
    with pytest.raises(TypeError, match=r"query must be text \(str\), not (bytes|bytearray): decode it"):
        index.search(query)


def test_paths_that_are_not_paths_name_the_parameter(model, tmp_path):
    from learnsim.persistence import load

    for bad in (None, b"/tmp/model.npz", 3):
        with pytest.raises(TypeError, match=r"^path must be the path of a file \(a str or a pathlib.Path\); got"):
            model.save(bad)
    with open(__file__, "rb") as f, pytest.raises(TypeError, match="path must be the path of a file"):
        load(f)
    with pytest.raises(ValueError, match="path is empty"):
        learnsim.load("")
    for bad in (None, object()):
        with pytest.raises(TypeError, match="pipeline must be a fitted learnsim Pipeline or the path of a model file"):
            Index.build(tmp_path / "a", bad, TEXTS)
    with pytest.raises(TypeError, match="path must be the path of the index's directory"):
        Index.build(None, model, TEXTS)
    with pytest.raises(TypeError, match="path must be the path of an index directory"):
        Index.open(None)


def test_a_collection_without_a_counted_word_is_named(cosine_model, tmp_path):
    message = "none of the 2 texts of the collection holds a word this model counts"
    with pytest.raises(ValueError, match=message):
        cosine_model.search(["refund"], ["the a", "of the"], k=1)
    with pytest.raises(ValueError, match=message):
        Index.build(tmp_path / "a", cosine_model, ["the a", "of the"])


def test_a_one_document_collection_names_the_scoring_the_user_has(cosine_model):
    assert cosine_model.scoring == "tf.idf cosine"
    with pytest.raises(ValueError, match=r"^the tf.idf cosine \(this model's scoring\) weights documents by the idf"):
        cosine_model.similarity(["I paid twice"], ["I was charged twice"])


@pytest.mark.parametrize("docs", [["How do I delete my account?"],
                                  ["How do I delete my account?", "Where is my parcel?"],
                                  ["How do I delete my account?", "delete my account", "my account"]])
def test_bm25_finds_an_exact_copy_in_a_collection_of_a_few_documents(docs, tmp_path):
    """rank_bm25's okapi idf is <= 0 for every word of a collection of one or two documents (its
    issues 39 and 43): a model that is BM25 found nothing for a document's own text, or scored
    the copy below an unrelated text. Every shared word now counts."""
    from learnsim._baseline_models import baseline_pipeline

    bm25 = baseline_pipeline("bm25", TEXTS)
    hits = bm25.search([docs[0]], docs, k=len(docs))[0]
    assert hits and hits[0]["corpus_id"] == 0 and hits[0]["score"] > 0
    scores = bm25.similarity([docs[0]], docs + ["hello world"])[0]
    assert scores[0] > scores[-1] == 0
    if len(docs) > 1:
        index = Index.build(tmp_path / "a", bm25, docs)
        assert index.search(docs[0], k=1)[0]["id"] == "1"


def test_a_lone_surrogate_is_refused_by_every_entry_alike(model):
    # the index refused it; search and similarity took it and fit learned from it (match:
    # tests/test_pipeline.py)
    from learnsim._utils.inputs import TextError

    bad = "reset \ud800 password"
    calls = {"fit": lambda: learnsim.fit(TEXTS + [bad], clusters=LABELS + [0], baseline_holdout=None),
             "search query": lambda: model.search(bad, TEXTS),
             "search corpus": lambda: model.search("password", TEXTS + [bad]),
             "similarity": lambda: model.similarity([bad], ["password"])}
    for name, call in calls.items():
        with pytest.raises(TextError, match=r"\[\d+\].*lone surrogate \(U\+D800\)"):
            call()

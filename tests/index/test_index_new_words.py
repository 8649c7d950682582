"""Words first met in documents written after the build count only after ``reindex`` (the
collection vocabulary is fixed at build): ``add``, ``update`` and ``upsert`` say how many written
documents hold such words (learnsim.index._new_words), where before nothing said an added document
was not findable by them. The command line shows the count."""
from __future__ import annotations

import json
import warnings

import pytest

from conftest import run_cli
from index_models import corpus, model

from learnsim.index import Index, NewWordsWarning

NEW = ["zorblax quuxite", "flimflam"]       # words of no text of the corpus


def _written(write):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        write()
    return [w.message for w in caught if isinstance(w.message, NewWordsWarning)]


@pytest.fixture
def index(tmp_path):
    texts, _, ids, _ = corpus()
    with Index.build(tmp_path / "idx", model("linklearn"), texts[:60], ids[:60]) as index:
        yield index


def test_an_add_counts_the_documents_holding_words_the_index_lacks(index):
    texts, _, _, _ = corpus()
    known = " ".join(texts[0].split()[:5])
    got = _written(lambda: index.add([f"{known} {NEW[0]}", NEW[1], known], ids=["a", "b", "c"]))
    assert len(got) == 1
    w = got[0]
    assert (w.n_documents, w.n_unknown_only, w.n_written) == (2, 1, 3)
    assert set(w.examples) <= {"zorblax", "quuxite", "flimflam"} | set(index.pipeline.vectorizer.build_tokenizer()(
        " ".join(NEW)))
    assert "reindex" in str(w) and not any(word in str(w) for word in w.examples)   # (a registry per text)
    # what it says: not found by its new words now, found once reindexed
    assert index.search("flimflam", k=3) == []
    index.reindex()
    assert [h["id"] for h in index.search("flimflam", k=3)] == ["b"]


def test_known_words_and_metadata_alone_say_nothing(index):
    texts, _, _, _ = corpus()
    known = " ".join(texts[0].split()[:5])
    assert _written(lambda: index.add([known], ids=["k"])) == []
    with pytest.warns(NewWordsWarning):
        index.add([NEW[1]], ids=["n"])
    assert _written(lambda: index.update(["n"], metadata=[{"x": 1}])) == []


def test_update_and_upsert_count_them_too(index):
    (w,) = _written(lambda: index.update(["d1"], [NEW[0]]))
    assert (w.n_documents, w.n_unknown_only) == (1, 1)
    (w,) = _written(lambda: index.upsert([NEW[1], NEW[0]], ids=["d2", "new"]))
    assert (w.n_documents, w.n_written) == (2, 2)


def test_a_model_without_a_collection_vocabulary_says_nothing(tmp_path):
    """A learned distance keeps its fitted vectors: reindex would change nothing."""
    texts, _, ids, _ = corpus()
    with Index.build(tmp_path / "idx", model("mcd"), texts[:60], ids[:60]) as index:
        assert _written(lambda: index.add([NEW[1]], ids=["a"])) == []


def test_the_command_line_add_counts_them(index, tmp_path):
    texts, _, _, _ = corpus()
    path = index.path
    index.close()
    docs = tmp_path / "new.jsonl"
    docs.write_text("".join(json.dumps({"id": i, "text": t}) + "\n"
                            for i, t in [("a", NEW[0]), ("b", texts[0]), ("c", NEW[1])]), encoding="utf-8")
    code, out, err = run_cli(["index", "add", path, "--corpus", docs, "--json"])
    assert code == 0, err
    assert json.loads(out)["with_new_words"] == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "warning: 2 of the 3" in lines[0] and "reindex" in lines[0] and "'flimflam'" in lines[0]


def test_a_vectoriser_that_reads_no_words_makes_no_write_fail(index, monkeypatch):
    """The count is a note: where the lexical vectoriser has no tokenizer to read words with (one
    not learnsim's), the write goes on and says nothing."""
    real = index.pipeline.lexical_vectorizer

    class Opaque:
        def __init__(self, vec):
            self.transform = vec.transform

    monkeypatch.setattr(index.pipeline, "lexical_vectorizer", lambda statistics: Opaque(real(statistics)))
    assert _written(lambda: index.add([NEW[1]], ids=["opaque"])) == []
    assert index.document("opaque")[0] == NEW[1]

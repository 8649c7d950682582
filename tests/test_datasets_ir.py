"""Retrieval collections from explicit paths and from memory: read_smart_collection (SMART
variants: fields, qrels layouts, numbering by id or position), load_trec_collection's variants
(XML topics, id<TAB>text files, data in memory), RetrievalCollection.from_lists, and the
bad-bytes policy of these readers."""
from __future__ import annotations

import gzip
import warnings

import numpy as np
import pytest

from conftest import require_corpus
from learnsim.datasets import (DocumentFormatError, RetrievalCollection, UndecodableBytesWarning,
                               load_smart_collection, load_trec_collection, read_smart_collection)


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


DOCS = """.I 1
.T
Library networks
.A
Avram, H.D.
.W
Networks of libraries share catalogues.
.X
1\t5\t1
.I 2
.T Coffee and tea
.K tea, coffee
.W
Drinks in the reading room.
.I 3
.W
Untitled text.
"""
# .I ids with gaps, as in Cranfield: position 2 is id 5, position 3 is id 9
QUERIES = ".I 001\n.W\nlibrary networks?\n.I 005\n.W\nwhat about drinks?\n.I 009\n.W\nan unjudged query\n"


def _smart(tmp_path, qrels, docs=DOCS, queries=QUERIES):
    return (_write(tmp_path / "coll.all", docs), _write(tmp_path / "coll.qry", queries),
            _write(tmp_path / "coll.rel", qrels))


@pytest.mark.parametrize("qrels, numbering, qrels_format", [
    ("1 1\n1 3\n5 2\n", "id", "pairs"),                                   # query doc, by id
    ("     1      1\t0\t0.000000\n     1      3\t0\t0.000000\n     5      2\t0\t0.000000\n",
     "id", "pairs"),                                                      # CISI's extra columns
    ("1 1\n1 3\n2 2\n", "position", "pairs"),                             # query doc, by position
    ("1 0 1 1\n1 0 3 2\n1 0 2 0\n5 0 2 1\n", "id", "trec"),               # TREC lines
    ("1 Q0 1 1\n1 Q0 3 1\n2 Q0 2 1\n", "position", "trec"),
    ("1 1 1\n1 3 2\n1 2 -1\n2 2 4\n", "position", "graded"),              # Cranfield-style grades
])
def test_smart_variants_are_detected(tmp_path, qrels, numbering, qrels_format):
    c = read_smart_collection(*_smart(tmp_path, qrels))
    assert c.info["numbering"] == numbering and c.info["qrels_format"] == qrels_format
    assert list(c.doc_ids) == ["1", "2", "3"] and list(c.query_ids) == ["1", "5", "9"]
    np.testing.assert_array_equal(c.relevance.toarray(), [[1, 0, 1], [0, 1, 0], [0, 0, 0]])
    assert list(c.queries_without_judgments) == ["9"]
    assert c.documents[0] == "Library networks\nNetworks of libraries share catalogues."
    assert c.documents[1] == "Coffee and tea\nDrinks in the reading room."
    # the same file read with the layout spelled out gives the same collection
    same = read_smart_collection(*_smart(tmp_path, qrels), numbering=numbering, qrels_format=qrels_format)
    assert same.qrels == c.qrels


def test_smart_graded_grades_and_relevant_grades(tmp_path):
    files = _smart(tmp_path, "1 1 1\n1 3 5\n2 2 4\n")
    default = read_smart_collection(*files)
    assert default.qrels == {"1": {"1": 1, "3": 5}, "5": {"2": 4}}
    assert default.relevance.nnz == 3                       # grade >= 1 is relevant
    cranfield = read_smart_collection(*files, relevant_grades=(1, 2, 3, 4))
    assert cranfield.relevance.nnz == 2                     # 5 = "no interest"


def test_smart_fields_title_and_name(tmp_path):
    docs = ".I 1\n.T\nwing flow .\n.W\nwing flow .\nthe flow over a wing .\n.I 2\n.T\nheat\n.K\nhot\n.W\nbody\n"
    files = _smart(tmp_path, "1 1\n", docs=docs, queries=".I 1\n.W\nwing\n")
    c = read_smart_collection(*files, title_opens_body=True, text_fields=("T", "K", "W"), name="mine")
    assert c.documents == ["wing flow .\nthe flow over a wing .", "heat\nhot\nbody"]
    assert c.name == "mine" and c.info["n_titles_in_body"] == 1
    assert read_smart_collection(*files, text_fields="W").documents[1] == "body"


def test_smart_gzipped_files(tmp_path):
    docs, queries, qrels = _smart(tmp_path, "1 1\n")
    packed = tmp_path / "coll.all.gz"
    packed.write_bytes(gzip.compress(docs.read_bytes()))
    assert read_smart_collection(packed, queries, qrels).n_documents == 3


def test_smart_errors(tmp_path):
    files = _smart(tmp_path, "1 1\n7 2\n")
    with pytest.raises(ValueError, match=r"coll\.rel, line 2: judgment names unknown query '7'"):
        read_smart_collection(*files, numbering="id")
    assert read_smart_collection(*files, numbering="id", strict=False).info["n_dropped_judgments"] == 1
    with pytest.raises(ValueError, match=r"line 2: query number '7' is not a position 1\.\.3"):
        read_smart_collection(*files, numbering="position")
    files = _smart(tmp_path, "1 1 high\n")
    with pytest.raises(ValueError, match=r"coll\.rel, line 1: relevance grade 'high' is not an integer"):
        read_smart_collection(*files, qrels_format="graded")
    files = _smart(tmp_path, "1 0 1\n")
    with pytest.raises(ValueError, match=r"line 1: 3 field\(s\), expected 4"):
        read_smart_collection(*files, qrels_format="trec")
    files = _smart(tmp_path, "\n")
    with pytest.raises(ValueError, match="holds no relevance judgments"):
        read_smart_collection(*files)
    with pytest.raises(ValueError, match="numbering must be one of"):
        read_smart_collection(*files, numbering="order")
    with pytest.raises(ValueError, match="qrels_format must be one of"):
        read_smart_collection(*files, qrels_format="csv")
    with pytest.raises(ValueError, match="text_fields must be SMART field letters"):
        read_smart_collection(*files, text_fields=("title",))
    with pytest.raises(FileNotFoundError, match="queries: .* is not an existing file"):
        read_smart_collection(files[0], tmp_path / "missing.qry", files[2])
    with pytest.raises(TypeError, match="strict must be True or False"):
        read_smart_collection(*files, strict="no")
    with pytest.raises(TypeError, match="a list of strings is read as a list of file paths"):
        read_smart_collection(["a text", "another"], files[1], files[2])
    with pytest.raises(ValueError, match="read other SMART files with read_smart_collection"):
        load_smart_collection("med")


def test_smart_in_memory_parts(tmp_path):
    docs, queries, _qrels = _smart(tmp_path, "1 1\n")
    c = read_smart_collection(docs, queries, {"1": {"1": 1, "3": 0}, "5": ["2"]})
    assert c.info["qrels_format"] == "memory"
    np.testing.assert_array_equal(c.relevance.toarray(), [[1, 0, 0], [0, 1, 0], [0, 0, 0]])
    mixed = read_smart_collection({"a": "first text", "b": "second"}, queries, [("1", "b")])
    assert list(mixed.doc_ids) == ["a", "b"] and mixed.relevance.nnz == 1


def test_smart_bad_bytes(tmp_path):
    docs = _write(tmp_path / "coll.all", DOCS.encode().replace(b"catalogues", b"catalo\xffgues"))
    files = (docs, _write(tmp_path / "coll.qry", QUERIES), _write(tmp_path / "coll.rel", "1 1\n"))
    with pytest.warns(UndecodableBytesWarning, match=r"coll\.all: 1 line\(s\) are not UTF-8 text \(first: line 7\)"):
        c = read_smart_collection(*files)
    assert "catalo\ufffdgues" in c.documents[0]
    with pytest.raises(DocumentFormatError, match=r"coll\.all, line 7: not UTF-8 .*--encoding-errors replace"):
        read_smart_collection(*files, encoding_errors="strict")
    with pytest.raises(ValueError, match="encoding_errors must be"):
        read_smart_collection(*files, encoding_errors="ignore")


@pytest.mark.corpus
@pytest.mark.parametrize("key, names, kwargs", [
    ("cisi", ("CISI.ALL", "CISI.QRY", "CISI.REL"), {}),
    ("cran", ("cran.all.1400", "cran.qry", "cranqrel"), {"relevant_grades": (1, 2, 3, 4), "title_opens_body": True}),
])
def test_real_smart_collections_read_from_paths(key, names, kwargs):
    folder = require_corpus(f"ir/{key}")
    named = load_smart_collection(key, data_dir=folder)
    # auto-detection finds each collection's numbering and qrels layout
    explicit = read_smart_collection(*(folder / n for n in names), name=key, **kwargs)
    assert explicit.info["numbering"] == ("id" if key == "cisi" else "position")
    assert explicit.qrels == named.qrels and explicit.documents == named.documents
    assert (explicit.relevance != named.relevance).nnz == 0


# ------------------------------------------------------------------------------- TREC

XML_TOPICS = """<topics>
<topic number="1">
  <query>coronavirus origin</query>
  <question>what is the origin of COVID-19?</question>
  <narrative>seeking range of information &amp; theories</narrative>
</topic>
<topic number="2"><query>tea harvest</query><question>how was it?</question></topic>
</topics>
"""


def test_trec_xml_topics_tsv_files_and_tabs(tmp_path):
    docs = _write(tmp_path / "collection.tsv", "docno\ttext\nD1\tcovid came from bats\nD2\ta tea harvest\n")
    topics = _write(tmp_path / "topics.xml", XML_TOPICS)
    qrels = _write(tmp_path / "qrels.txt", "1\t0\tD1\t2\n2\t0\tD2\t1\n2\t0\tD1\t0\n")
    c = load_trec_collection(docs, topics, qrels)
    assert list(c.doc_ids) == ["D1", "D2"] and c.documents == ["covid came from bats", "a tea harvest"]
    assert c.queries == ["coronavirus origin", "tea harvest"]
    np.testing.assert_array_equal(c.relevance.toarray(), [[1, 0], [0, 1]])
    both = load_trec_collection(docs, topics, qrels, fields=("title", "desc"))
    assert both.queries[0] == "coronavirus origin\nwhat is the origin of COVID-19?"
    with pytest.raises(ValueError, match=r"topic 2 has no \(or an empty\) <narr> field"):
        load_trec_collection(docs, topics, qrels, fields=("narr",))
    tsv_topics = _write(tmp_path / "queries.tsv", "1\tcovid origin\n2\ttea\n")
    assert load_trec_collection(docs, tsv_topics, qrels).queries == ["covid origin", "tea"]
    bad = _write(tmp_path / "bad.tsv", "D1 no tab here\n")
    with pytest.raises(ValueError, match=r"bad\.tsv, line 1: expected 'id<TAB>text'"):
        load_trec_collection(bad, topics, qrels)
    cut = _write(tmp_path / "cut.xml", '<topic number="1"><query>x</query></topic>\n<topic number="2">')
    with pytest.raises(ValueError, match=r"2 <topic> tag\(s\) but 1 complete"):
        load_trec_collection(docs, cut, qrels)


def test_trec_in_memory_parts(tmp_path):
    topics = _write(tmp_path / "topics.xml", XML_TOPICS)
    c = load_trec_collection({"D1": "covid came from bats", "D2": "tea"}, topics, [("1", "D1", 1), ("2", "D2")])
    assert c.info["files"]["documents"] == [] and c.relevance.nnz == 2
    everything = load_trec_collection([("D1", "x")], [("1", "q")], {"1": {"D1": 1}})
    assert everything.n_documents == 1 and everything.n_queries == 1
    with pytest.raises(ValueError, match="documents is an empty list"):
        load_trec_collection([], topics, {"1": {"D1": 1}})


def test_trec_bad_bytes_strict_and_replace(tmp_path):
    docs = _write(tmp_path / "d.tsv", b"D1\tcaf\xe9 latin\nD2\tfine\n")
    topics = _write(tmp_path / "q.tsv", "1\tcafe\n")
    qrels = _write(tmp_path / "qrels", "1 0 D1 1\n")
    with pytest.warns(UndecodableBytesWarning, match=r"d\.tsv: 1 line\(s\).*encoding='latin-1'"):
        assert load_trec_collection(docs, topics, qrels).documents[0] == "caf\ufffd latin"
    with pytest.raises(DocumentFormatError, match=r"d\.tsv, line 1: not UTF-8 text"):
        load_trec_collection(docs, topics, qrels, encoding_errors="strict")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_trec_collection(docs, topics, qrels, encoding="latin-1").documents[0] == "café latin"


# ---------------------------------------------------------------------- from_lists

def test_from_lists_shapes():
    c = RetrievalCollection.from_lists(["a cat", "a dog", "a fish"], ["cats?"], [(0, 0), (0, 2, 2), ("0", "1", 0)],
                                       name="toy")
    assert list(c.doc_ids) == ["0", "1", "2"] and list(c.query_ids) == ["0"]
    np.testing.assert_array_equal(c.relevance.toarray(), [[1, 0, 1]])
    assert c.qrels == {"0": {"0": 1, "2": 2, "1": 0}} and c.name == "toy"
    by_dict = RetrievalCollection.from_lists({"d007": "x", "8": "y"}, {"q1": "x?"}, {"q1": {"008": 1}})
    assert list(by_dict.doc_ids) == ["d007", "8"] and by_dict.relevance.nnz == 1   # "008" is "8"


def test_from_lists_dataframes():
    pd = pytest.importorskip("pandas")
    docs = pd.DataFrame({"doc_id": ["a", "b"], "text": ["first", "second"]})
    queries = pd.DataFrame({"qid": [1], "text": ["which?"]})
    qrels = pd.DataFrame({"query": [1, 1], "doc": ["a", "b"], "relevance": [1, 0]})
    c = RetrievalCollection.from_lists(docs, queries, qrels)
    np.testing.assert_array_equal(c.relevance.toarray(), [[1, 0]])
    positional = RetrievalCollection.from_lists(pd.DataFrame([["a", "x"], ["b", "y"]]), pd.DataFrame({"q": ["x?"]}),
                                                pd.DataFrame([["0", "b"]]))
    assert list(positional.doc_ids) == ["a", "b"] and positional.relevance.nnz == 1
    with pytest.raises(ValueError, match="needs a 'text' column"):
        RetrievalCollection.from_lists(pd.DataFrame({"a": [1], "b": [2], "c": [3]}), ["q"], [])


@pytest.mark.parametrize("documents, queries, qrels, error, message", [
    ([], ["q"], [], ValueError, "documents is empty"),
    (["a", 3], ["q"], [], TypeError, "expected a list of texts or of \\(id, text\\) tuples"),
    ({"a": 3}, ["q"], [], TypeError, "the text must be a string"),
    ({"": "x"}, ["q"], [], ValueError, "empty id"),
    ([("a", "x"), ("a", "y")], ["q"], [], ValueError, "document id 'a' occurs more than once"),
    (["x"], ["q"], [("0", "5")], ValueError, "qrels 0: judgment names unknown document '5'"),
    (["x"], ["q"], [("0", "0", "high")], ValueError, "relevance grade 'high' is not an integer"),
    (["x"], ["q"], [("0", "0", 1.5)], ValueError, "relevance grade 1.5 is not an integer"),
    (["x"], ["q"], [("0",)], TypeError, "expected \\(query_id, doc_id\\)"),
    (["x"], ["q"], {"0": 1}, TypeError, "must be a dict"),
    (["x"], ["q"], "qrels.txt".encode(), TypeError, "qrels must be a path"),
    (42, ["q"], [], TypeError, "documents must be a path"),
])
def test_from_lists_errors(documents, queries, qrels, error, message):
    with pytest.raises(error, match=message):
        RetrievalCollection.from_lists(documents, queries, qrels)


def test_from_lists_lenient_and_strict_flag():
    c = RetrievalCollection.from_lists(["x"], ["q"], [("0", "0"), ("0", "9")], strict=False)
    assert c.info["n_dropped_judgments"] == 1
    with pytest.raises(TypeError, match="strict must be True or False"):
        RetrievalCollection.from_lists(["x"], ["q"], [], strict=1)

"""Retrieval collections from explicit paths and from memory: read_smart_collection (SMART
variants: fields, qrels layouts, numbering by id or position), load_trec_collection's variants
(XML topics, id<TAB>text files, data in memory), RetrievalCollection.from_lists, and the
bad-bytes policy of these readers.

Loaders for paper 002's corpora: Wikispeedia (documents + hyperlinks), the SMART test
collections CISI and Cranfield, and TREC-style collections.
"""
from __future__ import annotations

import gzip
import io
import tarfile
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from conftest import require_corpus
from learnsim.datasets import (DocumentFormatError, LinkedCorpus, RetrievalCollection, UndecodableBytesWarning,
                               load_smart_collection, load_trec_collection, load_wikispeedia, read_smart_collection)
from learnsim.supervision import Links


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


def _smart_files(tmp_path, qrels, docs=DOCS, queries=QUERIES):
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
    c = read_smart_collection(*_smart_files(tmp_path, qrels))
    assert c.info["numbering"] == numbering and c.info["qrels_format"] == qrels_format
    assert list(c.doc_ids) == ["1", "2", "3"] and list(c.query_ids) == ["1", "5", "9"]
    np.testing.assert_array_equal(c.relevance.toarray(), [[1, 0, 1], [0, 1, 0], [0, 0, 0]])
    assert list(c.queries_without_judgments) == ["9"]
    assert c.documents[0] == "Library networks\nNetworks of libraries share catalogues."
    assert c.documents[1] == "Coffee and tea\nDrinks in the reading room."
    # the same file read with the layout spelled out gives the same collection
    same = read_smart_collection(*_smart_files(tmp_path, qrels), numbering=numbering, qrels_format=qrels_format)
    assert same.qrels == c.qrels


def test_smart_graded_grades_and_relevant_grades(tmp_path):
    files = _smart_files(tmp_path, "1 1 1\n1 3 5\n2 2 4\n")
    default = read_smart_collection(*files)
    assert default.qrels == {"1": {"1": 1, "3": 5}, "5": {"2": 4}}
    assert default.relevance.nnz == 3                       # grade >= 1 is relevant
    cranfield = read_smart_collection(*files, relevant_grades=(1, 2, 3, 4))
    assert cranfield.relevance.nnz == 2                     # 5 = "no interest"


def test_smart_fields_title_and_name(tmp_path):
    docs = ".I 1\n.T\nwing flow .\n.W\nwing flow .\nthe flow over a wing .\n.I 2\n.T\nheat\n.K\nhot\n.W\nbody\n"
    files = _smart_files(tmp_path, "1 1\n", docs=docs, queries=".I 1\n.W\nwing\n")
    c = read_smart_collection(*files, title_opens_body=True, text_fields=("T", "K", "W"), name="mine")
    assert c.documents == ["wing flow .\nthe flow over a wing .", "heat\nhot\nbody"]
    assert c.name == "mine" and c.info["n_titles_in_body"] == 1
    assert read_smart_collection(*files, text_fields="W").documents[1] == "body"


def test_smart_gzipped_files(tmp_path):
    docs, queries, qrels = _smart_files(tmp_path, "1 1\n")
    packed = tmp_path / "coll.all.gz"
    packed.write_bytes(gzip.compress(docs.read_bytes()))
    assert read_smart_collection(packed, queries, qrels).n_documents == 3


def test_smart_errors(tmp_path):
    files = _smart_files(tmp_path, "1 1\n7 2\n")
    with pytest.raises(ValueError, match=r"coll\.rel, line 2: judgment names unknown query '7'"):
        read_smart_collection(*files, numbering="id")
    assert read_smart_collection(*files, numbering="id", strict=False).info["n_dropped_judgments"] == 1
    with pytest.raises(ValueError, match=r"line 2: query number '7' is not a position 1\.\.3"):
        read_smart_collection(*files, numbering="position")
    files = _smart_files(tmp_path, "1 1 high\n")
    with pytest.raises(ValueError, match=r"coll\.rel, line 1: relevance grade 'high' is not an integer"):
        read_smart_collection(*files, qrels_format="graded")
    files = _smart_files(tmp_path, "1 0 1\n")
    with pytest.raises(ValueError, match=r"line 1: 3 field\(s\), expected 4"):
        read_smart_collection(*files, qrels_format="trec")
    files = _smart_files(tmp_path, "\n")
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
    docs, queries, _qrels = _smart_files(tmp_path, "1 1\n")
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
    (["x"], ["q"], [("0", "0", 10 ** 500)], ValueError, r"relevance grade 10{39}\.\.\. is out of range"),
    (["x"], ["q"], [("0", "0", 2 ** 31)], ValueError, "relevance grade 2147483648 is out of range"),
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


# ------------------------------------------------------------ (formerly test_ir_datasets.py)
WIKISPEEDIA = "wikispeedia/wikispeedia-articles-links.tar.gz"


def _write(path, text, encoding="utf-8", newline="\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.replace("\n", newline).encode(encoding) if isinstance(text, str) else text
    path.write_bytes(data)
    return path


def _index(ids, wanted):
    positions = np.flatnonzero(np.asarray(ids) == wanted)
    assert positions.size == 1, f"{wanted!r} occurs {positions.size} times"
    return int(positions[0])


# ============================================================ real corpora (module-scoped)

@pytest.fixture(scope="module")
def wikispeedia():
    path = require_corpus(WIKISPEEDIA)
    return load_wikispeedia(path=path)


@pytest.fixture(scope="module")
def cisi():
    require_corpus("ir/cisi/CISI.ALL")
    return load_smart_collection("cisi", data_dir=require_corpus("ir").parent)


@pytest.fixture(scope="module")
def cranfield():
    require_corpus("ir/cran/cran.all.1400")
    return load_smart_collection("cran", data_dir=require_corpus("ir").parent)


def test_wikispeedia_counts(wikispeedia):
    w = wikispeedia
    assert isinstance(w, LinkedCorpus) and isinstance(w.links, Links)
    assert len(w.names) == len(w.texts) == len(w.categories) == w.links.n_items == 4604
    # every line of links.tsv is accounted for
    assert w.links.n_links + w.n_dropped_links + w.n_self_links + w.n_duplicate_links == 119_882
    assert (w.n_dropped_links, w.n_self_links, w.n_duplicate_links) == (0, 110, 0)
    assert w.links.n_links == 119_772
    assert list(w.names) == sorted(w.names)
    assert w.n_dropped_categories == 0
    assert sum(1 for c in w.categories if not c) == 6  # "Some articles have no category"
    assert repr(w).count("\n") == 0 and "4604 documents" in repr(w)


def test_wikispeedia_names_are_decoded_and_aligned(wikispeedia):
    w = wikispeedia
    assert not any("%" in n for n in w.names)  # no URL encoding left
    aland = _index(w.names, "Åland")
    assert "subject.Countries" in w.categories[aland]
    assert "Åland" in w.texts[aland][:200]
    ubuntu = _index(w.names, "Ubuntu_(Linux_distribution)")
    assert "Ubuntu" in w.texts[ubuntu][:200]
    # the first line of links.tsv: Áedán mac Gabráin -> Bede
    source, target = _index(w.names, "Áedán_mac_Gabráin"), _index(w.names, "Bede")
    assert target in w.links.out_links(source)
    assert w.links.out_links(source).size == 11


def test_cisi_counts(cisi):
    c = cisi
    assert isinstance(c, RetrievalCollection)
    assert (c.n_documents, c.n_queries) == (1460, 112)
    assert sp.isspmatrix_csr(c.relevance) and c.relevance.shape == (112, 1460)
    assert c.relevance.nnz == 3114 and set(np.unique(c.relevance.data)) == {1}
    assert int(c.judged_query_mask.sum()) == 76 and len(c.queries_without_judgments) == 36
    # CISI.REL line 1: query 1, document 28
    assert c.relevance[_index(c.query_ids, "1"), _index(c.doc_ids, "28")] == 1
    assert c.qrels["1"]["28"] == 1
    # CRLF line ends are gone
    assert not any("\r" in t for t in c.documents + c.queries)
    assert c.documents[0].startswith("18 Editions of the Dewey Decimal Classifications\n")
    judged = c.judged_only()
    assert judged.n_queries == 76 and judged.relevance.nnz == 3114
    assert "76 with a relevant document" in repr(c) and "\n" not in repr(c)


def test_cranfield_counts_and_positional_qrels(cranfield):
    c = cranfield
    assert (c.n_documents, c.n_queries) == (1400, 225)
    assert c.relevance.nnz == 1612  # grades 1-4; the 225 grade -1 pairs are not relevant
    assert len(c.queries_without_judgments) == 0
    # cran.qry numbers its queries 1, 2, 4, 8, ..., 365; cranqrel numbers them 1..225 in order
    assert list(c.query_ids[:5]) == ["1", "2", "4", "8", "9"] and c.query_ids[-1] == "365"
    # cranqrel "4 166 3": the 4th query (.I 008, chemically reacting gas mixtures)
    assert "chemically reacting gas mixtures" in c.queries[3]
    assert c.relevance[3, _index(c.doc_ids, "166")] == 1 and c.qrels["8"]["166"] == 3
    # cranqrel "225 1379 2" and "225 1188 -1": the last query is .I 365
    assert c.relevance[224, _index(c.doc_ids, "1379")] == 1
    assert c.relevance[224, _index(c.doc_ids, "1188")] == 0 and c.qrels["365"]["1188"] == -1
    # abstracts open with the title, which is not repeated; stray markers stay in the abstract
    assert c.documents[0].count("experimental investigation of the aerodynamics") == 1
    assert "application to turbulent separations" in c.documents[_index(c.doc_ids, "240")]
    assert c.info["n_stray_markers_in_body"] == 4 and c.info["n_empty_documents"] == 2


# ================================================================ synthetic Wikispeedia

def _tar(path, members):
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            data = data.encode("utf-8") if isinstance(data, str) else data
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


_HEADER = "# The list of all links between articles.\n# FORMAT: a b\n\n"


def _wiki(tmp_path, links, categories="", articles=None):
    articles = articles if articles is not None else {
        "Caf%C3%A9": "Café\n\nA place for coffee.\n", "Tea": "Tea\n\nA drink.\n", "Water": "Water\n"}
    members = {f"plaintext_articles/{name}.txt": text for name, text in articles.items()}
    members["paths/links.tsv"] = _HEADER + links
    members["paths/categories.tsv"] = "# categories\n\n" + categories
    return _tar(tmp_path / "wiki.tar.gz", members)


def test_wikispeedia_synthetic(tmp_path):
    links = ("Caf%C3%A9\tTea\n"       # kept
             "Tea\tWater\n"           # kept
             "Tea\tWater\n"           # repeated
             "Water\tWater\n"         # self-link
             "Tea\tMissing_page\n")   # unknown target
    path = _wiki(tmp_path, links, categories="Tea\tsubject.Food\nTea\tsubject.Drinks\nGhost\tsubject.X\n")
    w = load_wikispeedia(path=path)
    assert list(w.names) == ["Café", "Tea", "Water"]
    assert w.texts[0].startswith("Café")
    np.testing.assert_array_equal(w.links.edges, [[0, 1], [1, 2]])
    assert (w.n_dropped_links, w.n_self_links, w.n_duplicate_links) == (1, 1, 1)
    assert w.categories == [(), ("subject.Food", "subject.Drinks"), ()]
    assert w.n_dropped_categories == 1
    assert "3 documents, 2 links" in repr(w)


def test_wikispeedia_strict_unknown_link_target(tmp_path):
    path = _wiki(tmp_path, "Tea\tWater\nTea\tMissing_page\n")
    with pytest.raises(ValueError, match=r"line 5: link 'Tea' -> 'Missing_page'.*no article file"):
        load_wikispeedia(path=path, strict=True)


def test_wikispeedia_strict_unknown_category_article(tmp_path):
    path = _wiki(tmp_path, "Tea\tWater\n", categories="Ghost\tsubject.X\n")
    with pytest.raises(ValueError, match="'Ghost' has no article file"):
        load_wikispeedia(path=path, strict=True)


def test_wikispeedia_without_links(tmp_path):
    with pytest.raises(ValueError, match="holds no links"):
        load_wikispeedia(path=_wiki(tmp_path, ""))


def test_wikispeedia_only_unusable_links(tmp_path):
    message = r"none of its 2 links joins two distinct articles.*missing article: 1, self-links: 1"
    with pytest.raises(ValueError, match=message):
        load_wikispeedia(path=_wiki(tmp_path, "Tea\tTea\nTea\tNowhere\n"))


def test_wikispeedia_non_utf8_article(tmp_path):
    articles = {"Tea": "Tea\n", "Water": "Water\n", "Bad": "caf\xe9\n".encode("latin-1")}
    path = _wiki(tmp_path, "Tea\tWater\n", articles=articles)
    with pytest.raises(ValueError, match=r"plaintext_articles/Bad\.txt, line 1: not UTF-8"):
        load_wikispeedia(path=path, encoding_errors="strict")
    for _ in range(2):  # the parse is cached; the warning comes on every call
        with pytest.warns(UndecodableBytesWarning, match=r"1 file\(s\) with 1 line\(s\) .*Bad\.txt, line 1"):
            corpus = load_wikispeedia(path=path)
    assert corpus.texts[list(corpus.names).index("Bad")] == "caf\ufffd\n"


def test_wikispeedia_malformed_tables(tmp_path):
    with pytest.raises(ValueError, match=r"links\.tsv, line 4: 3 tab-separated field\(s\), expected 2"):
        load_wikispeedia(path=_wiki(tmp_path, "Tea\tWater\tx\n"))
    with pytest.raises(ValueError, match="not valid URL-encoded UTF-8"):
        load_wikispeedia(path=_wiki(tmp_path, "Tea\tW%E9ter\n"))


def test_wikispeedia_archive_problems(tmp_path):
    no_categories = _tar(tmp_path / "a.tar.gz", {"plaintext_articles/Tea.txt": "Tea", "links.tsv": "Tea\tTea\n"})
    with pytest.raises(ValueError, match=r"no categories\.tsv"):
        load_wikispeedia(path=no_categories)
    no_articles = _tar(tmp_path / "b.tar.gz", {"links.tsv": "a\tb\n", "categories.tsv": ""})
    with pytest.raises(ValueError, match="no plaintext_articles"):
        load_wikispeedia(path=no_articles)
    not_tar = _write(tmp_path / "c.tar.gz", "just text")
    with pytest.raises(ValueError, match="not a readable tar archive"):
        load_wikispeedia(path=not_tar)
    with pytest.raises(FileNotFoundError, match="not an existing file"):
        load_wikispeedia(path=tmp_path / "missing.tar.gz")
    with pytest.raises(ValueError, match="not both"):
        load_wikispeedia(data_dir=tmp_path, path=not_tar)
    with pytest.raises(TypeError, match="strict must be True or False"):
        load_wikispeedia(path=not_tar, strict="yes")


# ====================================================================== synthetic SMART

_CISI_ALL = """.I 1
.T
Library Networks
.A
Avram, H.D.
.A
McCallum, S.H.
.W
   Networks of libraries share catalogues.
.X
1\t5\t1
.I 2
.T Coffee and tea
.W
Drinks in the reading room.
.I 3
.W
Untitled text.
"""
_CISI_QRY = """.I 1
.W
library networks?
.I 2
.W
what about drinks?
.I 3
.W
an unjudged query
"""
_CISI_REL = "     1      1\t0\t0.000000\n     1      3\t0\t0.000000\n     2      2\t0\t0.000000\n"


def _smart(tmp_path, docs=_CISI_ALL, queries=_CISI_QRY, rel=_CISI_REL, names=("CISI.ALL", "CISI.QRY", "CISI.REL")):
    for name, text in zip(names, (docs, queries, rel)):
        _write(tmp_path / name, text, newline="\r\n")  # CISI has CRLF line ends
    return tmp_path


def test_smart_synthetic(tmp_path):
    c = load_smart_collection("cisi", data_dir=_smart(tmp_path))
    assert list(c.doc_ids) == ["1", "2", "3"] and list(c.query_ids) == ["1", "2", "3"]
    assert c.documents[0] == "Library Networks\nNetworks of libraries share catalogues."
    assert c.documents[1] == "Coffee and tea\nDrinks in the reading room."  # title on the marker line
    assert c.documents[2] == "Untitled text."
    np.testing.assert_array_equal(c.relevance.toarray(), [[1, 0, 1], [0, 1, 0], [0, 0, 0]])
    assert list(c.queries_without_judgments) == ["3"]
    assert c.qrels == {"1": {"1": 1, "3": 1}, "2": {"2": 1}}
    assert c.info["n_stray_markers_in_body"] == 0


def test_smart_field_before_first_record(tmp_path):
    _smart(tmp_path, docs=".T\nA title\n" + _CISI_ALL)
    with pytest.raises(ValueError, match=r"CISI\.ALL, line 1: field '\.T' before the first '\.I'"):
        load_smart_collection("cisi", data_dir=tmp_path)


def test_smart_text_before_first_record(tmp_path):
    _smart(tmp_path, queries="stray words\n" + _CISI_QRY)
    with pytest.raises(ValueError, match=r"CISI\.QRY, line 1: text before the first '\.I'"):
        load_smart_collection("cisi", data_dir=tmp_path)


def test_smart_malformed_records(tmp_path):
    _smart(tmp_path, docs=".I\n.W\nno id\n")
    with pytest.raises(ValueError, match=r"line 1: '\.I' must be followed by one record id"):
        load_smart_collection("cisi", data_dir=tmp_path)
    _smart(tmp_path, docs=".I 1\nloose text\n")
    with pytest.raises(ValueError, match="belongs to no field"):
        load_smart_collection("cisi", data_dir=tmp_path)
    _smart(tmp_path, docs=_CISI_ALL + ".I 2\n.W\nagain\n")
    with pytest.raises(ValueError, match="document id '2' occurs more than once"):
        load_smart_collection("cisi", data_dir=tmp_path)
    _smart(tmp_path, docs="\n\n")
    with pytest.raises(ValueError, match=r"no '\.I' records"):
        load_smart_collection("cisi", data_dir=tmp_path)


def test_smart_qrels_unknown_document_or_query(tmp_path):
    _smart(tmp_path, rel=_CISI_REL + "     2      9\t0\t0.000000\n")
    with pytest.raises(ValueError, match=r"CISI\.REL, line 4: judgment names unknown document '9'"):
        load_smart_collection("cisi", data_dir=tmp_path)
    lenient = load_smart_collection("cisi", data_dir=tmp_path, strict=False)
    assert lenient.info["n_dropped_judgments"] == 1 and lenient.relevance.nnz == 3
    _smart(tmp_path, rel=_CISI_REL + "     7      1\t0\t0.000000\n")
    with pytest.raises(ValueError, match="unknown query '7'"):
        load_smart_collection("cisi", data_dir=tmp_path)
    _smart(tmp_path, rel="1\n")
    with pytest.raises(ValueError, match=r"line 1: 1 field\(s\), expected at least 2"):
        load_smart_collection("cisi", data_dir=tmp_path)


_CRAN_ALL = """.I 1
.T
wing flow .
.A
smith
.B
j. ae. 1958
.W
wing flow .
the flow over a wing .
.A
stray line kept in the body
.I 2
.T
heat .
.W
heat transfer .
"""
_CRAN_QRY = ".I 001\n.W\nwing ?\n.I 005\n.W\nheat ?\n"
_CRAN_NAMES = ("cran.all.1400", "cran.qry", "cranqrel")


def test_smart_cranfield_layout(tmp_path):
    _smart(tmp_path, docs=_CRAN_ALL, queries=_CRAN_QRY, rel="1 1 2\n2 2 4\n2 1 -1\n", names=_CRAN_NAMES)
    c = load_smart_collection("cranfield", data_dir=tmp_path)
    assert list(c.query_ids) == ["1", "5"]  # leading zeros dropped; qrels "2" is the 2nd query
    np.testing.assert_array_equal(c.relevance.toarray(), [[1, 0], [0, 1]])
    assert c.qrels == {"1": {"1": 2}, "5": {"2": 4, "1": -1}}
    assert c.documents[0] == "wing flow .\nthe flow over a wing .\nstray line kept in the body"
    assert c.documents[1] == "heat .\nheat transfer ."
    assert c.info["n_stray_markers_in_body"] == 1


def test_smart_cranfield_bad_qrels(tmp_path):
    _smart(tmp_path, docs=_CRAN_ALL, queries=_CRAN_QRY, rel="3 1 2\n", names=_CRAN_NAMES)
    with pytest.raises(ValueError, match=r"query number '3' is not a position 1\.\.2"):
        load_smart_collection("cran", data_dir=tmp_path)
    _smart(tmp_path, docs=_CRAN_ALL, queries=_CRAN_QRY, rel="1 1 high\n", names=_CRAN_NAMES)
    with pytest.raises(ValueError, match="grade 'high' is not an integer"):
        load_smart_collection("cran", data_dir=tmp_path)
    _smart(tmp_path, docs=_CRAN_ALL, queries=_CRAN_QRY, rel="1 1\n", names=_CRAN_NAMES)
    with pytest.raises(ValueError, match="expected at least 3"):
        load_smart_collection("cran", data_dir=tmp_path)
    _smart(tmp_path, docs=_CRAN_ALL, queries=_CRAN_QRY, rel="1 1 2\n1 1 3\n", names=_CRAN_NAMES)
    with pytest.raises(ValueError, match="judged again with grade 3"):
        load_smart_collection("cran", data_dir=tmp_path)


def test_smart_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="unknown SMART collection 'med'"):
        load_smart_collection("med", data_dir=tmp_path)
    with pytest.raises(FileNotFoundError, match="cisi documents file not found"):
        load_smart_collection("cisi", data_dir=tmp_path)


# ======================================================================= synthetic TREC

_TREC_DOCS_A = """<DOC>
<DOCNO> FT911-1 </DOCNO>
<DOCTYPE> NEWS STORY </DOCTYPE>
<HEADLINE>Oil prices rise</HEADLINE>
<TEXT>
Crude oil &amp; gas rose today.
</TEXT>
</DOC>
<DOC>
<DOCNO>FT911-2</DOCNO>
<TEXT>Tea harvest <!-- a comment --> was poor.</TEXT>
</DOC>
"""
_TREC_DOCS_B = "<DOC><DOCNO>AP-3</DOCNO><TEXT>Football results.</TEXT></DOC>\n"
_TOPICS = """<top>
<num> Number: 301
<title> oil prices

<desc> Description:
Find reports on the price of oil.

<narr> Narrative:
A relevant document names a price.
</top>

<top>
<num> Number: 302
<title> tea harvest
<desc> Description:
How good was the tea harvest?
<narr> Narrative:
Any harvest report.
</top>
"""
_QRELS = "301 0 FT911-1 1\n301 0 FT911-2 0\n302 0 FT911-2 2\n"


def _trec(tmp_path, docs_a=_TREC_DOCS_A, topics=_TOPICS, qrels=_QRELS, encoding="utf-8"):
    folder = tmp_path / "docs"
    _write(folder / "ft" / "ft911", docs_a, encoding=encoding)
    folder.joinpath("ap").mkdir(parents=True, exist_ok=True)
    with gzip.open(folder / "ap" / "ap01.gz", "wb") as handle:
        handle.write(_TREC_DOCS_B.encode())
    _write(folder / "README", "Documents of a toy collection.\n")
    return folder, _write(tmp_path / "topics.301-302", topics, encoding=encoding), \
        _write(tmp_path / "qrels.txt", qrels, encoding=encoding)


def test_trec_synthetic(tmp_path):
    docs, topics, qrels = _trec(tmp_path)
    c = load_trec_collection(docs, topics, qrels)
    assert isinstance(c, RetrievalCollection)
    # files in sorted path order: ap/ap01.gz, then ft/ft911; README skipped
    assert list(c.doc_ids) == ["AP-3", "FT911-1", "FT911-2"]
    assert c.documents[1] == "Oil prices rise\nCrude oil & gas rose today."  # no DOCNO / DOCTYPE text
    assert c.documents[2] == "Tea harvest was poor."
    assert c.info["files_without_documents"] == [str(docs / "README")]
    assert list(c.query_ids) == ["301", "302"] and c.queries == ["oil prices", "tea harvest"]
    np.testing.assert_array_equal(c.relevance.toarray(), [[0, 1, 0], [0, 0, 1]])
    assert c.qrels == {"301": {"FT911-1": 1, "FT911-2": 0}, "302": {"FT911-2": 2}}
    assert "3 documents, 2 queries" in repr(c)

    both = load_trec_collection(docs, topics, qrels, fields=("title", "desc"), text_tags=("TEXT",))
    assert both.queries[0] == "oil prices\nFind reports on the price of oil."
    assert both.documents[1] == "Crude oil & gas rose today."


def test_trec_qrels_unknown_document_or_query(tmp_path):
    docs, topics, qrels = _trec(tmp_path, qrels=_QRELS + "301 0 LA-99 1\n")
    with pytest.raises(ValueError, match=r"qrels\.txt, line 4: judgment names unknown document 'LA-99'"):
        load_trec_collection(docs, topics, qrels)
    lenient = load_trec_collection(docs, topics, qrels, strict=False)
    assert lenient.info["n_dropped_judgments"] == 1 and lenient.relevance.nnz == 2
    docs, topics, qrels = _trec(tmp_path, qrels=_QRELS + "451 0 FT911-1 1\n")
    with pytest.raises(ValueError, match="unknown query '451'"):
        load_trec_collection(docs, topics, qrels)


def test_trec_malformed_files(tmp_path):
    docs, topics, qrels = _trec(tmp_path, docs_a=_TREC_DOCS_A + "<DOC><DOCNO>X</DOCNO> cut off")
    with pytest.raises(ValueError, match=r"3 <DOC> tag\(s\) but 2 complete"):
        load_trec_collection(docs, topics, qrels)
    docs, topics, qrels = _trec(tmp_path, docs_a="<DOC><TEXT>no number</TEXT></DOC>")
    with pytest.raises(ValueError, match="document 1 has no <DOCNO>"):
        load_trec_collection(docs, topics, qrels)
    docs, topics, qrels = _trec(tmp_path, docs_a=_TREC_DOCS_B)
    with pytest.raises(ValueError, match="document id 'AP-3' occurs more than once"):
        load_trec_collection(docs, topics, qrels)
    docs, topics, qrels = _trec(tmp_path, topics="<top>\n<title> no number\n</top>\n")
    with pytest.raises(ValueError, match=r"topic 1 has no <num>"):
        load_trec_collection(docs, topics, qrels)
    docs, topics, qrels = _trec(tmp_path, topics="<top>\n<num> Number: 301\n<title> oil\n")
    with pytest.raises(ValueError, match=r"1 <top> tag\(s\) but 0 complete"):
        load_trec_collection(docs, topics, qrels)
    # 'query doc grade' is a layout read_qrels reads; a line short of a field among TREC's is not
    docs, topics, qrels = _trec(tmp_path, qrels="301 FT911-1 1\n")
    assert load_trec_collection(docs, topics, qrels).qrels == {"301": {"FT911-1": 1}}
    docs, topics, qrels = _trec(tmp_path, qrels="301 0 FT911-1 1\n301 0 FT911-2\n")
    with pytest.raises(ValueError, match=r"line 2: 3 field\(s\), but .*line 1 has 4"):
        load_trec_collection(docs, topics, qrels)
    docs, topics, qrels = _trec(tmp_path, qrels="301 0 FT911-1 yes\n")
    with pytest.raises(ValueError, match="relevance 'yes' is not an integer"):
        load_trec_collection(docs, topics, qrels)


def test_trec_missing_topic_field(tmp_path):
    docs, topics, qrels = _trec(tmp_path)
    with pytest.raises(ValueError, match=r"topic 301 has no \(or an empty\) <summary> field"):
        load_trec_collection(docs, topics, qrels, fields=("title", "summary"))
    with pytest.raises(ValueError, match="fields is empty"):
        load_trec_collection(docs, topics, qrels, fields=())


def test_trec_encoding(tmp_path):
    latin = _TREC_DOCS_A.replace("Tea harvest", "Café harvest")
    docs, topics, qrels = _trec(tmp_path, docs_a=latin, encoding="latin-1")
    with pytest.raises(ValueError, match=r"ft911, line 11: not UTF-8 text .*encoding='latin-1'"):
        load_trec_collection(docs, topics, qrels, encoding_errors="strict")
    with pytest.warns(UndecodableBytesWarning, match=r"ft911: 1 line\(s\) are not UTF-8 text \(first: line 11\)"):
        replaced = load_trec_collection(docs, topics, qrels)
    assert replaced.documents[2].startswith("Caf\ufffd harvest")
    c = load_trec_collection(docs, topics, qrels, encoding="latin-1")
    assert c.documents[2].startswith("Café harvest")


def test_trec_bad_paths_and_arguments(tmp_path):
    docs, topics, qrels = _trec(tmp_path)
    with pytest.raises(FileNotFoundError, match="topics: .* does not exist"):
        load_trec_collection(docs, tmp_path / "nope", qrels)
    with pytest.raises(ValueError, match="documents is an empty list"):
        load_trec_collection([], topics, qrels)
    with pytest.raises(ValueError, match="is a folder; topics and qrels must be files"):
        load_trec_collection(docs, docs, qrels)
    with pytest.raises(ValueError, match="no <DOC> element"):
        load_trec_collection(docs / "README", topics, qrels)
    with pytest.raises(ValueError, match="text_tags must be"):
        load_trec_collection(docs, topics, qrels, text_tags=("<TEXT>",))


def test_retrieval_collection_checks_its_shapes():
    with pytest.raises(ValueError, match=r"relevance has shape \(1, 1\); expected .* \(1, 2\)"):
        RetrievalCollection(name="x", doc_ids=np.array(["a", "b"]), documents=["A", "B"],
                            query_ids=np.array(["q"]), queries=["Q"], relevance=sp.csr_matrix((1, 1)),
                            qrels={}, queries_without_judgments=np.array(["q"]))

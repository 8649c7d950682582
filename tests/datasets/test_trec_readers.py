"""Readers of retrieval collections by path (issue 33, point 6): ``read_smart_collection`` of a
folder, ``read_corpus`` / ``read_queries`` / ``read_qrels`` (one part each, the layout told from
the file), ``load_trec_collection`` of BEIR's files, and TREC run files. The tests on CISI and
Cranfield skip with the reason when ``ir/`` is absent from the data folder.
"""
from __future__ import annotations

import json
import os
import threading

import pytest

from conftest import require_corpus
from learnsim.datasets import (load_smart_collection, load_trec_collection, read_corpus, read_qrels, read_queries,
                               read_smart_collection, read_trec_run, write_trec_run)


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- SMART by path

@pytest.mark.corpus
@pytest.mark.parametrize("name", ["cisi", "cran"])
def test_a_smart_folder_reads_as_the_named_loader_does(name):
    folder = require_corpus(f"ir/{name}")
    by_path = read_smart_collection(folder, name=name)
    named = load_smart_collection(name)
    assert by_path.doc_ids.tolist() == named.doc_ids.tolist()
    assert by_path.query_ids.tolist() == named.query_ids.tolist()
    assert by_path.qrels == named.qrels
    assert (by_path.relevance != named.relevance).nnz == 0
    assert by_path.info["numbering"] == ("id" if name == "cisi" else "position")
    files = [by_path.info["files"][part] for part in ("documents", "queries", "qrels")]
    assert read_smart_collection(files, name=name).qrels == named.qrels


@pytest.mark.corpus
@pytest.mark.parametrize("name, docs, queries, qrels, n_docs, n_queries, n_judged", [
    ("cisi", "CISI.ALL", "CISI.QRY", "CISI.REL", 1460, 112, 76),
    ("cran", "cran.all.1400", "cran.qry", "cranqrel", 1400, 225, 225),
])
def test_the_parts_of_cisi_and_cranfield_read_one_by_one(name, docs, queries, qrels, n_docs, n_queries, n_judged):
    folder = require_corpus(f"ir/{name}")
    corpus = read_corpus(folder / docs)
    topics = read_queries(folder / queries)
    info = {}
    judged = read_qrels(folder / qrels, query_ids=list(topics), info=info)
    assert (len(corpus), len(topics), len(judged)) == (n_docs, n_queries, n_judged)
    named = load_smart_collection(name)
    # the same texts as the named loader (Cranfield's bodies repeat their titles: told, and left out)
    assert list(corpus.values()) == named.documents and list(topics.values()) == named.queries
    assert judged == named.qrels
    assert info["layout"] == ("pairs" if name == "cisi" else "graded")
    assert info["numbering"] == ("id" if name == "cisi" else "position")


def test_a_folder_whose_files_cannot_be_told_apart_is_refused(tmp_path):
    for name in ("a.all", "b.all"):
        _write(tmp_path / name, ".I 1\n.W\ntext\n")
    _write(tmp_path / "query.text", ".I 1\n.W\nq\n")
    _write(tmp_path / "qrels.text", "1 1\n")
    with pytest.raises(ValueError, match=r"documents \(candidates: a.all, b.all\)"):
        read_smart_collection(tmp_path)
    with pytest.raises(TypeError, match="folder"):
        read_smart_collection(tmp_path / "a.all", tmp_path / "query.text")


# --------------------------------------------------------------------------- BEIR and TREC layouts

@pytest.fixture
def beir(tmp_path):
    _write(tmp_path / "corpus.jsonl", "".join(json.dumps(r) + "\n" for r in [
        {"_id": "d1", "title": "Passwords", "text": "how do I reset my password", "metadata": {}},
        {"_id": "d2", "title": "", "text": "I was charged twice"},
        {"_id": "007", "title": "Crashes", "text": "the app crashes on start"}]))
    _write(tmp_path / "queries.jsonl", "".join(json.dumps(r) + "\n" for r in [
        {"_id": "q1", "text": "password reset"}, {"_id": "q2", "text": "double charge"}]))
    _write(tmp_path / "qrels.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\t7\t0\nq2\td2\t1\n")
    return tmp_path


def test_load_trec_collection_reads_beir_files(beir):
    c = load_trec_collection(beir / "corpus.jsonl", beir / "queries.jsonl", beir / "qrels.tsv", name="beir")
    # the corpus's "007" is kept as written (a run file names it so); the qrels' "7" finds it by value
    assert c.doc_ids.tolist() == ["d1", "d2", "007"] and c.query_ids.tolist() == ["q1", "q2"]
    assert c.documents[0] == "Passwords\nhow do I reset my password" and c.documents[1] == "I was charged twice"
    assert c.qrels == {"q1": {"d1": 2, "007": 0}, "q2": {"d2": 1}}
    assert c.relevance.toarray().tolist() == [[1, 0, 0], [0, 1, 0]]
    assert read_corpus(beir / "corpus.jsonl") == dict(zip(c.doc_ids.tolist(), c.documents))
    assert read_queries(beir / "queries.jsonl") == {"q1": "password reset", "q2": "double charge"}


def test_qrels_layouts(tmp_path):
    trec = _write(tmp_path / "trec.txt", "# judged by hand\n301 0 FBIS3-1 1\n301 0 FBIS3-2 0\n\n302 0 LA-9 2\n")
    info = {}
    assert read_qrels(trec, info=info) == {"301": {"FBIS3-1": 1, "FBIS3-2": 0}, "302": {"LA-9": 2}}
    assert info == {"layout": "trec", "numbering": "id", "n_judgments": 3}
    graded = _write(tmp_path / "graded", "1 184 2\n1 29 -1\n2 12 4\n")
    assert read_qrels(graded) == {"1": {"184": 2, "29": -1}, "2": {"12": 4}}
    # numbered by position in the queries (Cranfield): 1 and 2 are the first two query ids
    assert read_qrels(graded, query_ids=["1", "4"]) == {"1": {"184": 2, "29": -1}, "4": {"12": 4}}
    pairs = _write(tmp_path / "pairs", "1     28\t0\t0.000000\n1     35\t0\t0.000000\n")
    assert read_qrels(pairs) == {"1": {"28": 1, "35": 1}}
    # BEIR's TSV splits at tabs: an id holding a space is one field (a trailing tab is no field)
    beir = _write(tmp_path / "beir.tsv", "query-id\tcorpus-id\tscore\nq1\tdoc 1\t1\nq1\td2\t0\t\n")
    assert read_qrels(beir) == {"q1": {"doc 1": 1, "d2": 0}}
    # a header over pairs (BEIR's without its score, "qid docno"): skipped, where it was read as
    # the judgment of a query 'query-id', which evaluate refused as not among the queries
    for header in ("query-id\tcorpus-id", "qid docno", "QUERY DOC"):
        headed = _write(tmp_path / "headed.tsv", f"{header}\nq1\td1\nq2\td7\n")
        info = {}
        assert read_qrels(headed, query_ids=["q1", "q2"], info=info) == {"q1": {"d1": 1}, "q2": {"d7": 1}}
        assert info["n_judgments"] == 2
    # two ids that are no header's names stay a judgment
    assert read_qrels(_write(tmp_path / "ids", "x1 doc\nq1 d1\n")) == {"x1": {"doc": 1}, "q1": {"d1": 1}}


@pytest.mark.parametrize("text, fragment", [
    ("q1 0 d1 1\nq1 0 d2\n", "line 2: 3 field(s), but"),
    ("q1 0 d1 high\n", "line 1: relevance 'high' is not an integer"),
    ("q1 0 d1 1.5\n", "line 1: relevance '1.5' is not an integer"),
    # trec_eval's range (a C int): a grade of 400 digits is refused, not an OverflowError later
    ("q1 0 d1 " + "9" * 400 + "\n", "line 1: relevance grade '99999999999999999999999999999999999999"),
    ("q1 0 d1 -2147483649\n", "is out of range: a grade is an integer from -2,147,483,648 to 2,147,483,647"),
    # longer than Python turns into an int: out of range too, quoted in its first characters
    ("q1 0 d1 " + "9" * 5000 + "\n", "line 1: relevance grade '9999"),
    # digits of other scripts and underscores, which int() reads: trec_eval does not
    ("q1 0 d1 \u0661\n", "line 1: relevance '\u0661' is not an integer"),
    ("q1 0 d1 1_000\n", "line 1: relevance '1_000' is not an integer"),
    ("q1 0 d1 1\nq1 0 d1 2\n", "line 2: query 'q1', document 'd1' judged again"),
    ("query-id\tcorpus-id\tscore\n", "a header and no relevance judgment"),
    ("# nothing\n\n", "holds no relevance judgment"),
    ("q1 0 d1 1 x\n", "5 field(s)"),
])
def test_malformed_qrels_name_the_file_and_line(tmp_path, text, fragment):
    path = _write(tmp_path / "qrels.txt", text)
    with pytest.raises(ValueError, match="qrels.txt") as caught:
        read_qrels(path)
    assert fragment in str(caught.value)


def test_qrels_naming_an_unknown_query_are_refused(tmp_path):
    path = _write(tmp_path / "qrels.txt", "q1 0 d1 1\nq9 0 d1 1\n")
    with pytest.raises(ValueError, match=r"qrels.txt, line 2: query 'q9' is not among the 2 queries"):
        read_qrels(path, query_ids=["q1", "q2"])


def test_queries_of_trec_topics_and_tsv(tmp_path):
    topics = _write(tmp_path / "topics.301.txt", "<top>\n<num> Number: 301\n<title> organized crime\n"
                                                 "<desc> Description:\nWhat is it?\n</top>\n")
    assert read_queries(topics) == {"301": "organized crime"}
    assert read_queries(topics, fields=("title", "desc")) == {"301": "organized crime\nWhat is it?"}
    tsv = _write(tmp_path / "queries.tsv", "qid\ttext\n0301\tcrime <in> cities\n")
    # an id<TAB>text file's id is text, kept as written; a topic's <num> is a number
    assert read_queries(tsv) == {"0301": "crime <in> cities"}
    with pytest.raises(ValueError, match="not a queries file of a known layout"):
        read_queries(_write(tmp_path / "plain.txt", "one query a line\n"))
    with pytest.raises(ValueError, match="'q1' occurs more than once"):
        read_queries(_write(tmp_path / "dup.tsv", "q1\ta\nq1\tb\n"))
    with pytest.raises(ValueError, match=r"q.jsonl, line 1: the record has no id"):
        read_queries(_write(tmp_path / "q.jsonl", '{"text": "a"}\n'))


def test_a_tsv_query_holding_a_unicode_line_separator_stays_one_query(tmp_path):
    # lines end at \n, \r\n and \r as every reader ends them: str.splitlines also cut a line at a
    # form feed or U+2028 inside the text, refusing the rest (naming the wrong line) or reading it
    # as another query where it held a TAB
    tsv = _write(tmp_path / "queries.tsv", "q1\tlava\u2028flows\tfast\r\nq2\tform\x0cfeed\nq3\tnext\u0085line\n")
    assert read_queries(tsv) == {"q1": "lava\u2028flows\tfast", "q2": "form\x0cfeed", "q3": "next\u0085line"}
    with pytest.raises(ValueError, match=r"queries\.tsv, line 3: expected 'id<TAB>text'"):
        read_queries(_write(tmp_path / "queries.tsv", "q1\ta\u2028b\nq2\tc\nno tab here\n"))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
@pytest.mark.parametrize("reader", [read_queries, read_corpus])
def test_a_pipe_whose_layout_must_be_read_first_is_refused_not_waited_on(tmp_path, reader):
    # its layout told from a first reading, the records were read from the pipe again, which
    # waited for a writer forever ('learnsim search --run --corpus FIFO.tsv' hung)
    fifo = tmp_path / "queries.tsv"
    os.mkfifo(fifo)
    outcome = []

    def read():
        try:
            outcome.append(reader(fifo))
        except Exception as exc:    # noqa: BLE001  (the test looks at it below)
            outcome.append(exc)

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():           # blocked opening the pipe: a writer that closes at once frees it
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(60)
    assert outcome and isinstance(outcome[0], ValueError), outcome
    assert "is a pipe or a device, not a file" in str(outcome[0])


@pytest.mark.parametrize("header", ["query-id\ttext", "qid\tquery", "_id\ttext", "QueryID\tText"])
def test_a_queries_tsv_header_of_other_id_names_is_no_query(tmp_path, header):
    # "query-id<TAB>text" was read as a query "text" of id "query-id", one more line of every run
    tsv = _write(tmp_path / "queries.tsv", f"{header}\nq1\tlava flows\n")
    assert read_queries(tsv) == {"q1": "lava flows"}


def test_corpus_of_trec_sgml(tmp_path):
    sgml = _write(tmp_path / "docs.sgml", "<DOC>\n<DOCNO> LA-1 </DOCNO>\n<TEXT>first &amp; best</TEXT>\n</DOC>\n"
                                          "<DOC><DOCNO>LA-2</DOCNO><TEXT>second</TEXT></DOC>\n")
    assert read_corpus(sgml) == {"LA-1": "first & best", "LA-2": "second"}
    assert read_corpus(tmp_path) == {"LA-1": "first & best", "LA-2": "second"}


def test_a_trec_document_with_two_docnos_is_refused_naming_it(tmp_path):
    # two documents run together (a lost </DOC>) were one, filed under the first <DOCNO> alone
    sgml = _write(tmp_path / "docs.sgml", "<DOC><DOCNO>LA-1</DOCNO><TEXT>first</TEXT>\n"
                                          "<DOCNO>LA-2</DOCNO><TEXT>second</TEXT></DOC>\n")
    with pytest.raises(ValueError, match=r"docs.sgml: document 1 \(<DOCNO> 'LA-1'\) has 2 <DOCNO> elements \('LA-2'\)"):
        read_corpus(sgml)


# --------------------------------------------------------------------------- run files

def test_a_run_written_and_read_back_is_the_same(tmp_path):
    path = tmp_path / "run.trec"
    run = {"q1": {"d1": 0.1 + 0.2, "d2": 0.3, "d10": -1e-9}, "q2": [("d3", 2.0)]}
    assert write_trec_run(path, run, tag="t1") == 4
    lines = path.read_text(encoding="utf-8").splitlines()
    # descending score, ranks from 1; 0.1 + 0.2 and 0.3 differ as doubles but are one C float, as
    # trec_eval holds a score, so they tie there and the larger id comes first
    assert [line.split()[2:4] for line in lines] == [["d2", "1"], ["d1", "2"], ["d10", "3"], ["d3", "1"]]
    assert read_trec_run(path) == {"q1": {"d1": 0.1 + 0.2, "d2": 0.3, "d10": -1e-9}, "q2": {"d3": 2.0}}
    write_trec_run(path, {"q1": {"a": 1.0, "b": 1.0}})
    # equal scores in trec_eval's order: the larger id first
    assert [line.split()[2] for line in path.read_text(encoding="utf-8").splitlines()] == ["b", "a"]


@pytest.mark.parametrize("run, fragment", [
    ({"q 1": {"d1": 1.0}}, "holds a blank"),
    ({"q1": {"d1": float("nan")}}, "finite number"),
    ({"q1": [("d1", 1.0), ("d1", 2.0)]}, "listed twice"),
    # a NUL ends the id for a C reader (trec_eval), which then reads another document's id 'a'
    ({"q1": {"a\x00b": 0.9, "a": 0.5}}, r"control character U\+0000"),
    ({"q\x1b1": {"d1": 1.0}}, r"query id .* control character U\+001B"),
    ({"q1": {"d1": 1.0}, "q2": {"d\x7f1": 1.0}}, r"control character U\+007F"),
])
def test_write_trec_run_refuses_what_a_run_file_cannot_hold(tmp_path, run, fragment):
    with pytest.raises(ValueError, match=fragment):
        write_trec_run(tmp_path / "run.trec", run)


@pytest.mark.parametrize("text, fragment", [
    ("q1 Q0 d1 1 0.5\n", "line 1: 5 field(s), expected 6"),
    ("q1 Q0 d1 1 0.5 t\nq1 Q0 d1 2 0.4 t\n", "line 2: document 'd1' is ranked again for query 'q1' (first on line 1)"),
    ("q1 Q0 d1 1 inf t\n", "line 1: the score 'inf' is not a finite number"),
    ("q1 Q0 d1 x 0.5 t\n", "line 1: the rank 'x' is not an integer"),
    # a score of 400 digits is no finite float; the message quotes 39 of them, not all
    ("q1 Q0 d1 1 " + "9" * 400 + " t\n", "line 1: the score '" + "9" * 39 + "... is not a finite number"),
    ("# only a comment\n", "holds no run line"),
])
def test_malformed_runs_name_the_file_and_line(tmp_path, text, fragment):
    path = _write(tmp_path / "run.trec", text)
    with pytest.raises(ValueError) as caught:
        read_trec_run(path)
    assert "run.trec" in str(caught.value) and fragment in str(caught.value)


def test_qrels_in_ir_datasets_order_are_read_by_their_iteration(tmp_path):
    # ir_datasets' export writes query_id doc_id relevance iteration: read as TREC, the grade
    # became the document and the iteration (0) every grade, every measure 0 without a word
    path = _write(tmp_path / "qrels.tsv", "q1\tMED-1\t2\t0\nq1\tMED-7\t0\t0\nq2\tMED-3\t1\t0\n")
    info = {}
    assert read_qrels(path, info=info) == {"q1": {"MED-1": 2, "MED-7": 0}, "q2": {"MED-3": 1}}
    assert info["layout"] == "irds"
    # TREC whose iteration is the query again (and whose relevance is the same throughout) stays TREC
    again = _write(tmp_path / "again.txt", "q1 q1 184 1\nq2 q2 29 1\n")
    assert read_qrels(again) == {"q1": {"184": 1}, "q2": {"29": 1}}
    # every field but the query a number: a TREC iteration counter over numeric documents, or
    # ir_datasets' order over numeric documents; refused, not guessed
    numbers = _write(tmp_path / "numbers.txt", "1 7 2 0\n1 8 0 0\n")
    with pytest.raises(ValueError, match=r"numbers.txt, line 1: cannot tell .*TREC.*ir_datasets"):
        read_qrels(numbers)


@pytest.mark.parametrize("text, expected", [
    # one line of ir_datasets' order: no second line to show which column stays the same, it
    # was TREC's 'query iteration document relevance', the document '1' judged 0
    ("q1\tMED-1\t2\t0\n", {"q1": {"MED-1": 2}}),
    ("q1 MED-1 1 0\n", {"q1": {"MED-1": 1}}),
    ("q1 MED-1 1 Q0\nq2 MED-1 2 Q0\n", {"q1": {"MED-1": 1}, "q2": {"MED-1": 2}}),
    # one TREC line, its iteration 0 or Q0, stays TREC
    ("q1 0 5 1\n", {"q1": {"5": 1}}),
    ("q1 Q0 MED-1 0\n", {"q1": {"MED-1": 0}}),
    ("q1 0 5 0\n", {"q1": {"5": 0}}),
    # one line of CISI's and CACM's relevant pairs
    ("1 28\t0\t0.000000\n", {"1": {"28": 1}}),
    ("01 1410 0 0\n", {"1": {"1410": 1}}),
])
def test_a_qrels_file_of_one_document_is_read_by_its_iteration(tmp_path, text, expected):
    assert read_qrels(_write(tmp_path / "qrels.txt", text)) == expected


@pytest.mark.parametrize("text, fragment", [
    # ir_datasets' export (tabs) judging every document 0, or CACM's pairs: all relevant before
    ("q1\tMED-1\t0\t0\nq2\tMED-7\t0\t0\n", r"line 1: every line reads .*CACM.*ir_datasets.*not relevant.*header"),
    # neither the second field nor the fourth an iteration
    ("q1 1 5 2\n", r"line 1: cannot tell .*TREC.*ir_datasets.*header"),
])
def test_qrels_whose_iteration_cannot_be_told_are_refused(tmp_path, text, fragment):
    with pytest.raises(ValueError, match=fragment):
        read_qrels(_write(tmp_path / "qrels.txt", text))
    # a header says which column is which
    header = "query_id\tdoc_id\trelevance\titeration\n" if "\t" in text else "qid Q0 docno rel\n"
    assert read_qrels(_write(tmp_path / "named.txt", header + text))


def test_cacm_pairs_apart_by_blanks_are_relevant_pairs(tmp_path):
    path = _write(tmp_path / "qrels.text", "01 1410 0 0\n01 1572 0 0\n02 2434 0 0\n")
    assert read_qrels(path) == {"1": {"1410": 1, "1572": 1}, "2": {"2434": 1}}


def test_qrels_split_at_tabs_keep_ids_that_hold_a_space_without_a_header(tmp_path):
    # split at blanks, "q1<TAB>doc 1<TAB>1" was TREC's query iteration doc relevance: the document '1'
    graded = _write(tmp_path / "graded.tsv", "q1\tdoc 1\t1\nq2\tdoc 2\t0\n")
    assert read_qrels(graded) == {"q1": {"doc 1": 1}, "q2": {"doc 2": 0}}
    trec = _write(tmp_path / "trec.tsv", "query 1\t0\tdoc 1\t2\nquery 2\t0\tdoc 2\t0\n")
    assert read_qrels(trec) == {"query 1": {"doc 1": 2}, "query 2": {"doc 2": 0}}
    # CISI's pairs, query and document apart by blanks before the tabs, are still pairs
    cisi = _write(tmp_path / "cisi.rel", "1     28\t0\t0.000000\n1     35\t0\t0.000000\n")
    assert read_qrels(cisi) == {"1": {"28": 1, "35": 1}}


@pytest.mark.parametrize("text, expected, layout", [
    # ir_datasets' names (a DataFrame of its qrels saved with to_csv(sep="\t", index=False))
    ("query_id\tdoc_id\trelevance\titeration\nq1\td1\t2\t0\nq2\td2\t0\t0\n", {"q1": {"d1": 2}, "q2": {"d2": 0}}, "irds"),
    ("qid Q0 docno rel\nq1 0 d1 2\nq2 0 d2 0\n", {"q1": {"d1": 2}, "q2": {"d2": 0}}, "trec"),
    # the columns as the header names them: the documents were read as the queries
    ("corpus-id\tquery-id\tscore\nd1\tq1\t2\nd2\tq2\t0\n", {"q1": {"d1": 2}, "q2": {"d2": 0}}, "header"),
])
def test_a_qrels_header_says_which_column_is_which(tmp_path, text, expected, layout):
    info = {}
    assert read_qrels(_write(tmp_path / "qrels.tsv", text), info=info) == expected
    assert info["layout"] == layout and info["n_judgments"] == 2


def test_a_first_judgement_with_a_grade_that_is_no_number_is_refused_not_taken_for_a_header(tmp_path):
    # "q1 d1 high" was BEIR's header to the reader: the judgement was dropped without a word
    path = _write(tmp_path / "qrels.tsv", "q1\td1\thigh\nq2\td2\t1\n")
    with pytest.raises(ValueError, match=r"qrels.tsv, line 1: relevance 'high' is not an integer"):
        read_qrels(path)
    # a header whose names contradict the columns' places is refused, not guessed
    odd = _write(tmp_path / "odd.tsv", "score\tquery-id\tid\n1\tq1\td1\n")
    with pytest.raises(ValueError, match=r"odd.tsv, line 1: the header"):
        read_qrels(odd)


def test_a_jsonl_naming_an_id_twice_is_refused_naming_both_lines(tmp_path):
    from learnsim.datasets import read_id_texts

    # evaluate and fit --corpus/--queries named the id alone (index build named the lines)
    path = _write(tmp_path / "corpus.jsonl", '{"_id": "d1", "text": "a"}\n{"_id": "d2", "text": "b"}\n'
                                             '{"_id": " d1 ", "title": "t", "text": "c"}\n')
    for read in (read_corpus, read_queries, read_id_texts, lambda p: read_id_texts(p, "queries")):
        with pytest.raises(ValueError, match=r"corpus.jsonl, line 3: the id 'd1' appears twice \(first on line 1\)"):
            read(path)


@pytest.mark.parametrize("text, fragment", [
    # a run file given as the judgements, ir_datasets' JSON Lines export, a CSV: told their
    # number of fields alone
    ("q1 Q0 d1 1 2.5 bm25\nq1 Q0 d3 2 1.0 bm25\n", r"line 1: 6 field\(s\).*reads as a TREC run.*--run"),
    ('{"query_id": "q1", "doc_id": "d1", "relevance": 1, "iteration": "0"}\n', r"line 1: 8 field\(s\).*JSON"),
    ("query-id,corpus-id,score\nq1,d1,1\n", r"line 1: 1 field\(s\).*commas"),
])
def test_a_file_that_is_not_judgements_says_what_it_looks_like(tmp_path, text, fragment):
    with pytest.raises(ValueError, match=fragment):
        read_qrels(_write(tmp_path / "qrels.txt", text))


@pytest.mark.parametrize("text, fragment", [
    # judgements given as the run, and an MS MARCO run (no score): told their number of fields alone
    ("q1 0 d1 1\nq2 0 d2 1\n", r"line 1: 4 field\(s\), expected 6.*relevance judgements.*--qrels"),
    ("q1\td1\t1\nq1\td2\t2\n", r"line 1: 3 field\(s\), expected 6.*MS MARCO run.*no score"),
])
def test_a_run_that_is_not_a_trec_run_says_what_it_looks_like(tmp_path, text, fragment):
    with pytest.raises(ValueError, match=fragment):
        read_trec_run(_write(tmp_path / "run.trec", text))


def test_a_tsv_header_with_a_title_column_is_no_record(tmp_path):
    # under "docid<TAB>title<TAB>text" the header was a document 'docid' of the text 'title text'
    docs = _write(tmp_path / "docs.tsv", "docid\ttitle\ttext\nd1\tCats\tthe cat sat\nd2\tDogs\ta dog ran\n")
    assert list(read_corpus(docs)) == ["d1", "d2"]
    queries = _write(tmp_path / "queries.tsv", "qid\ttitle\tquery\nq1\tCats\tcat\n")
    assert list(read_queries(queries)) == ["q1"]
    # a first record whose text happens to be a word such as 'title' is kept
    kept = _write(tmp_path / "kept.tsv", "d1\ttitle\ttext\nd2\tmore\n")
    assert list(read_corpus(kept)) == ["d1", "d2"]


def test_files_joined_with_their_byte_order_marks_read_as_one(tmp_path):
    # `cat a b > ab` of two files that each open with a BOM: the first id of the second file was
    # '\ufeffq2', its judgements and its run meeting nowhere (a JSON line was refused)
    bom = "\ufeff"

    def joined(name, first, second):
        path = tmp_path / name
        path.write_bytes((bom + first).encode("utf-8") + (bom + second).encode("utf-8"))
        return path

    assert read_qrels(joined("qrels.txt", "q1 0 d1 1\n", "q2 0 d2 2\n")) == {"q1": {"d1": 1}, "q2": {"d2": 2}}
    assert read_trec_run(joined("run.trec", "q1 Q0 d1 1 2.0 t\n", "q2 Q0 d2 1 1.0 t\n")) == \
        {"q1": {"d1": 2.0}, "q2": {"d2": 1.0}}
    assert list(read_queries(joined("queries.tsv", "q1\tcats\n", "q2\tdogs\n"))) == ["q1", "q2"]
    assert list(read_corpus(joined("corpus.jsonl", '{"_id": "d1", "text": "a"}\n', '{"_id": "d2", "text": "b"}\n'))) \
        == ["d1", "d2"]


def test_a_queries_tsv_header_of_three_columns_is_read_by_name(tmp_path):
    """'qid<TAB>query<TAB>label' was a query 'qid' of the text 'query<TAB>label', and each line's
    label joined to its query; a header ending in a TAB joined a line's extra field to its text."""
    queries = _write(tmp_path / "q.tsv", "qid\tquery\tlabel\nq1\tcats\tx\nq2\tdogs bark\ty\n")
    assert read_queries(queries) == {"q1": "cats", "q2": "dogs bark"}
    # pandas' df.to_csv(sep="\t"): its unnamed index column left out
    assert read_queries(_write(tmp_path / "p.tsv", "\tid\ttext\n0\tq1\tcats\n")) == {"q1": "cats"}
    with pytest.raises(ValueError, match=r"short.tsv, line 2: 2 field\(s\), expected the header's 3"):
        read_queries(_write(tmp_path / "short.tsv", "qid\tquery\tlabel\nq1\tcats\n"))
    trailing = _write(tmp_path / "t.tsv", "id\ttext\t\na\thello\tx\n")
    with pytest.raises(ValueError, match=r"t.tsv, line 2: a field past the header's 2 named columns \('x'\)"):
        read_queries(trailing)
    # an empty field there is none: the header's trailing TAB written on every line
    assert read_queries(_write(tmp_path / "t2.tsv", "id\ttext\t\na\thello\t\n")) == {"a": "hello"}


@pytest.mark.parametrize("line, empty", [("1\t\t1", "document"), ("1\t \t1", "document")])
def test_a_beir_qrels_line_with_an_empty_id_is_refused(tmp_path, line, empty):
    # split at tabs under BEIR's header, "1<TAB><TAB>1" judged the document '' without a word
    path = tmp_path / "test.tsv"
    path.write_text(f"query-id\tcorpus-id\tscore\n1\td1\t1\n{line}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"test\.tsv, line 3: the {empty} id is empty"):
        read_qrels(path)


def test_an_id_written_in_another_unicode_form_is_the_same_id(tmp_path):
    # 'čaj' precomposed (NFC) in the corpus and with a combining caron (NFD) in the qrels: "judgment
    # names unknown document 'čaj'", two spellings that look alike, as cluster labels were before NFC
    import unicodedata

    nfc = "\u010daj"
    nfd = unicodedata.normalize("NFD", nfc)
    assert nfd != nfc
    corpus = _write(tmp_path / "corpus.jsonl", json.dumps({"_id": nfc, "text": "zelený čaj"}) + "\n"
                    + json.dumps({"_id": "d2", "text": "káva"}) + "\n")
    queries = _write(tmp_path / "queries.jsonl", json.dumps({"_id": "q1", "text": "čaj"}) + "\n")
    qrels = _write(tmp_path / "qrels.tsv", f"query-id\tcorpus-id\tscore\nq1\t{nfd}\t1\n")
    coll = load_trec_collection([corpus], [queries], [qrels])
    assert coll.n_documents == 2 and coll.judged_query_mask.all()


def test_a_smart_file_and_read_id_texts_take_the_encoding_given(tmp_path):
    # read_corpus(..., encoding='cp1254') of a SMART file told its layout in cp1254 and read its
    # records as UTF-8: every Turkish letter U+FFFD under a note advising encoding='cp1254', the
    # encoding given; read_id_texts took no encoding at all
    import warnings

    from learnsim.datasets import read_corpus, read_id_texts, read_queries

    smart = tmp_path / "CORPUS.ALL"
    smart.write_bytes(".I 1\n.T\nağaç\n.W\nşeker ığdır\n.I 2\n.W\nçiçek güneş\n".encode("cp1254"))
    lines = tmp_path / "docs.tsv"
    lines.write_bytes("d1\tağaç şeker\n".encode("cp1254"))
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_bytes('{"id": "d1", "text": "ağaç şeker"}\n'.encode("cp1254"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for read in (read_corpus, read_queries):
            found = read(smart, encoding="cp1254")
            assert "ağaç" in found["1"] and "şeker ığdır" in found["1"] and found["2"] == "çiçek güneş"
        for path in (smart, lines, jsonl):
            ids, texts = read_id_texts(path, encoding="cp1254")
            assert "ş" in texts[0] and "\ufffd" not in "".join(texts)

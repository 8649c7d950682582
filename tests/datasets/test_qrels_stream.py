"""read_qrels reads a file line by line: the layout is told from the first judgement lines
(``trec._QRELS_SAMPLE_ROWS``), and a later line that contradicts it is refused, naming its line.
Keeping every line and its fields to tell the layout took 870 MB and 30 s for a million lines
(benchmarks/bench_qrels_read.py measures it)."""
from __future__ import annotations

import tracemalloc

import pytest

from learnsim.datasets import read_qrels
from learnsim.datasets import trec


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_reading_a_long_qrels_file_takes_little_more_memory_than_its_judgements(tmp_path):
    lines = [f"q{i // 10}\td{i}\t{i % 3}" for i in range(150_000)]
    path = _write(tmp_path / "qrels.tsv", "query-id\tcorpus-id\tscore\n" + "\n".join(lines) + "\n")
    tracemalloc.start()
    try:
        expected = {}
        for line in lines:
            q, d, s = line.split("\t")
            expected.setdefault(q, {})[d] = int(s)
        _, held = tracemalloc.get_traced_memory()
        del expected
        tracemalloc.reset_peak()
        qrels = read_qrels(path)
        _, peak = tracemalloc.get_traced_memory()
        del qrels
        tracemalloc.reset_peak()
        # with query_ids the judgements wait for the numbering (by id or by position) to be told
        # from every query the file names: a tuple of each line took 3.2 times the judgements,
        # numbers in arrays 1.8
        qrels = read_qrels(path, query_ids=[f"q{i}" for i in range(15_000)])
        _, peak_ids = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(qrels) == 15_000 and sum(map(len, qrels.values())) == 150_000
    # the lines, their fields and a text of where each is, kept to tell the layout: about 9 times
    # the judgements; read line by line, the judgements and the first lines' sample
    assert peak < 3 * held, (peak, held)
    assert peak_ids < 2.5 * held, (peak_ids, held)


LAYOUTS = {
    "beir.tsv": "query-id\tcorpus-id\tscore\n" + "".join(f"q{i % 4}\td{i}\t{i % 3}\n" for i in range(12)),
    "trec.txt": "# judged\n" + "".join(f"{i % 4} 0 FB-{i} {i % 2}\n\n" for i in range(12)),
    "irds.tsv": "".join(f"q{i % 4}\tMED-{i}\t{i % 3}\t0\n" for i in range(12)),
    "graded": "".join(f"{i % 4 + 1} {i} {i % 5 - 1}\n" for i in range(12)),
    "pairs.rel": "".join(f"{i % 4 + 1}     {i}\t0\t0.000000\n" for i in range(12)),
    "spaces.tsv": "".join(f"q{i % 4}\tdoc {i}\t1\n" for i in range(12)),
    # tabs and blanks split alike in the sample; then ids holding a blank, read at tabs as the whole file
    "late-spaces.tsv": "".join(f"q{i % 4}\td{i}\t1\n" for i in range(6)) + "q1\tdoc 7\t2\nq3\tdoc 8\t1\n",
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_a_file_longer_than_the_sample_reads_as_a_file_read_whole(tmp_path, monkeypatch, name):
    path = _write(tmp_path / name, LAYOUTS[name])
    whole, whole_info = read_qrels(path, info=(info := {})), info
    by_id = read_qrels(path, query_ids=["1", "2", "3", "4"], unknown="keep", info=(info_ids := {}))
    monkeypatch.setattr(trec, "_QRELS_SAMPLE_ROWS", 3)
    assert read_qrels(path, info=(info := {})) == whole and info == whole_info
    assert read_qrels(path, query_ids=["1", "2", "3", "4"], unknown="keep", info=(info := {})) == by_id
    assert info == info_ids


@pytest.mark.parametrize("text, fragment", [
    # a fifth field on a TREC line
    ("q1 0 d1 1\n" * 3 + "q1 0 d2 1 x\n", r"line 4: 5 field\(s\), but .*line 1 has 4"),
    # ids holding a blank, split at tabs; then a line without tabs
    ("q1\tdoc 1\t1\n" * 3 + "q2 d2 1\n", r"line 4: 1 field\(s\) split at tabs, but the first 3 judgement lines"),
    # ir_datasets' order, its iteration (0) the same; then an iteration 5: TREC read whole
    ("q1\tMED-1\t2\t0\nq1\tMED-7\t0\t0\nq2\tMED-3\t1\t0\nq2\tMED-2\t1\t5\n",
     r"line 4: the first 3 judgement lines read as 'query document relevance iteration'.*reads as .*TREC"),
    # CISI's pairs, their two numbers the same; then other numbers: TREC and ir_datasets cannot be told apart
    ("1 28 0 0.000000\n1 35 0 0.000000\n2 7 0 0.000000\n2 9 1 0.000000\n",
     r"line 4: .*'query document' pairs.*cannot tell"),
])
def test_a_line_after_the_sample_that_contradicts_the_layout_is_refused(tmp_path, monkeypatch, text, fragment):
    path = _write(tmp_path / "qrels.txt", text)
    read_qrels(_write(tmp_path / "head.txt", "".join(text.splitlines(keepends=True)[:3])))   # the sample alone reads
    monkeypatch.setattr(trec, "_QRELS_SAMPLE_ROWS", 3)
    with pytest.raises(ValueError, match=fragment):
        read_qrels(path)


def test_a_pair_judged_twice_is_named_after_a_line_that_cannot_be_read(tmp_path, monkeypatch):
    # as when the file was read whole: the line that is no judgement is the one to fix first
    path = _write(tmp_path / "qrels.txt", "q1 0 d1 1\nq1 0 d1 2\nq1 0 d2 1\nq1 0 d3 high\n")
    monkeypatch.setattr(trec, "_QRELS_SAMPLE_ROWS", 2)
    with pytest.raises(ValueError, match=r"qrels.txt, line 4: relevance 'high'"):
        read_qrels(path)


def test_load_trec_collection_reads_its_qrels_line_by_line(tmp_path, monkeypatch):
    # a list of every judgement and a text of its line was built before the collection: about
    # 3.9 times what the judgements take, beyond the collection of one judgement (650 MiB for a
    # million lines); the file is decoded in small chunks here, so that the chunk (a constant
    # part, 1 MiB of text) does not hide what grows with the lines
    from learnsim.datasets import _decode, load_trec_collection

    monkeypatch.setattr(_decode, "_CHUNK_BYTES", 1 << 14)
    n_queries, per_query = 1_500, 20
    docs = {f"d{i}": "text" for i in range(n_queries * per_query)}
    queries = {f"q{i}": "text" for i in range(n_queries)}
    path = _write(tmp_path / "qrels.txt", "".join(f"q{i // per_query} 0 d{i} {i % 3}\n"
                                                  for i in range(n_queries * per_query)))
    one = _write(tmp_path / "one.txt", "q0 0 d0 1\n")
    tracemalloc.start()
    try:
        expected = {}
        for i in range(n_queries * per_query):
            expected.setdefault(f"q{i // per_query}", {})[f"d{i}"] = i % 3
        _, held = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        load_trec_collection(docs, queries, one)
        _, base = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        collection = load_trec_collection(docs, queries, path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert collection.qrels == expected and collection.info["n_judgments"] == n_queries * per_query
    # the judgements, and the positions of the relevant ones for the matrix (1.9 times)
    assert peak - base < 2.5 * held, (peak, base, held)


def test_load_trec_collection_reads_the_layouts_read_qrels_reads(tmp_path):
    # ir_datasets' order read as TREC: the relevance was the document, the iteration every grade
    docs, queries = {"MED-1": "a", "MED-2": "b", "1": "c", "2": "d"}, {"q1": "a", "q2": "b"}
    for text in ("q1\tMED-1\t2\t0\nq2\tMED-2\t1\t0\nq2\tMED-1\t0\t0\n",
                 "q1 MED-1 2\nq2 MED-2 1\nq2 MED-1 0\n",
                 "query-id\tcorpus-id\tscore\nq1\tMED-1\t2\nq2\tMED-2\t1\nq2\tMED-1\t0\n"):
        path = _write(tmp_path / "qrels.txt", text)
        from learnsim.datasets import load_trec_collection

        c = load_trec_collection(docs, queries, path, strict=False)
        assert c.qrels == read_qrels(path) == {"q1": {"MED-1": 2}, "q2": {"MED-2": 1, "MED-1": 0}}, text
        assert c.info["n_dropped_judgments"] == 0


def _broken(lines, at):
    """``lines`` with the lines ``at`` ({1-based line number: text}) replaced."""
    lines = list(lines)
    for number, text in at.items():
        lines[number - 1] = text
    return "".join(lines)


TREC_LINES = [f"q{i % 50} 0 d{i} {i % 2}\n" for i in range(20_000)]
TAB_LINES = [f"q{i % 50}\tdoc {i}\t1\n" for i in range(20_000)]


@pytest.mark.parametrize("text, first", [
    # a relevance that is no number on line 5, a line short of a field on line 9,000 (in the
    # sample the layout is told from): the count was named, the layout failing first
    (_broken(TREC_LINES, {5: "q1 0 d4 high\n", 9_000: "q1 0 d9\n"}), r"line 5: relevance 'high'"),
    (_broken(TAB_LINES, {5: "q1\tdoc 4\thigh\n", 9_001: "q1 d9 1\n"}), r"line 5: relevance 'high'"),
    # and the other way round
    (_broken(TREC_LINES, {5: "q1 0 d4\n", 9_000: "q1 0 d9 high\n"}), r"line 5: 3 field\(s\)"),
    (_broken(TREC_LINES, {5: "q1 0 d4 1 x\n", 15_000: "q1 0 d9 high\n"}), r"line 5: 5 field\(s\)"),
])
def test_the_error_names_the_first_bad_line_of_a_long_file(tmp_path, text, first):
    with pytest.raises(ValueError, match=first):
        read_qrels(_write(tmp_path / "qrels.txt", text))


def test_a_query_not_among_the_queries_is_named_before_a_later_bad_line(tmp_path):
    # the queries were numbered once every line was read, so line 15,000's relevance was named
    path = _write(tmp_path / "qrels.txt", _broken(TREC_LINES, {3: "q99 0 d2 1\n", 15_000: "q1 0 d9 high\n"}))
    with pytest.raises(ValueError, match=r"line 3: query 'q99' is not among the 50 queries"):
        read_qrels(path, query_ids=[f"q{i}" for i in range(50)])
    # a bad line before it is still the one named; with unknown="keep" the unknown query is no error
    path = _write(tmp_path / "early.txt", _broken(TREC_LINES, {3: "q99 0 d2 1\n", 2: "q1 0 d9 high\n"}))
    with pytest.raises(ValueError, match=r"line 2: relevance 'high'"):
        read_qrels(path, query_ids=[f"q{i}" for i in range(50)])
    with pytest.raises(ValueError, match=r"line 15000: relevance 'high'"):
        read_qrels(tmp_path / "qrels.txt", query_ids=[f"q{i}" for i in range(50)], unknown="keep")

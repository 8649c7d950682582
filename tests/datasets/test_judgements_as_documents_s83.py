"""Judgements given where documents are read: BEIR's qrels/test.tsv (a first line
query-id<TAB>corpus-id<TAB>score) as 'index build --corpus' or 'fit --input'. The header was read
as a document ('query-id', text 'corpus-id<TAB>score') and every judgement as another (the corpus
id and grade its text), or as a labelled document of the cluster 'q1'; exit 0. Now a first line
naming two id columns and no text column is refused as the layout of judgements."""
from __future__ import annotations

import pytest

from learnsim.datasets import read_documents, read_labelled_documents
from learnsim.exceptions import DocumentFormatError

from conftest import run_cli


@pytest.mark.parametrize("header", ["query-id\tcorpus-id\tscore", "qid\tdocid\trelevance", "query-id\tcorpus-id",
                                    "qid\tpid"])
def test_a_qrels_header_is_refused_where_documents_are_read(tmp_path, header):
    path = tmp_path / "test.tsv"
    path.write_text(header + "\n" + "q1\td1\t1\nq1\td2\t1\nq2\td3\t1\n".replace("\t1\n", "\t1\n" if
                    header.count("\t") == 2 else "\n"), encoding="utf-8")
    for read in (read_documents, read_labelled_documents):
        with pytest.raises(DocumentFormatError, match=r"test\.tsv, line 1: its first line names two id columns"):
            read(path)


@pytest.mark.parametrize("header, ids", [("docid\ttext", ["d1"]), ("id\ttitle\ttext", ["d1"]),
                                         ("doc_id\tquery", ["d1"])])
def test_a_collection_header_with_one_id_column_is_read(tmp_path, header, ids):
    path = tmp_path / "docs.tsv"
    path.write_text(header + "\n" + "d1\tsome words" + ("\tmore words" if header.count("\t") == 2 else "") + "\n",
                    encoding="utf-8")
    assert read_documents(path).ids == ids


def test_the_command_line_refuses_it_in_one_line(tmp_path):
    from learnsim._baseline_models import baseline_pipeline

    baseline_pipeline("cosine", ["words number one", "other words two"]).save(tmp_path / "m.npz")
    qrels = tmp_path / "test.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n", encoding="utf-8")
    code, out, err = run_cli(["index", "build", "--model", tmp_path / "m.npz", "--corpus", qrels,
                              "--out", tmp_path / "idx"])
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "judgements" in err and not (tmp_path / "idx").exists()

"""`learnsim evaluate --beir` measured as BEIR's own evaluation measures (EvaluateRetrieval.evaluate,
ignore_identical_ids=True): a hit that is the query itself (a document of the query's id, as in
ArguAna and Quora, whose queries are documents of the corpus) is not counted. `--queries` keeps it,
as trec_eval does (CISI's query 5 and document 5 are unrelated)."""
import json

import pytest

from conftest import run_cli

CORPUS = [("q1", "solar panels lower electricity bills for households"),
          ("d1", "solar panels cut household electricity bills"),
          ("d2", "wind farms and the price of power"),
          ("q2", "cats are better pets than dogs for small flats"),
          ("d3", "cats suit small flats better than dogs do"),
          ("d4", "a history of pet ownership in cities")]


@pytest.fixture
def beir_folder(tmp_path):
    folder = tmp_path / "arguana_like"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps({"_id": i, "title": "", "text": t}) + "\n"
                                                 for i, t in CORPUS), encoding="utf-8")
    (folder / "queries.jsonl").write_text("".join(json.dumps({"_id": i, "text": t}) + "\n"
                                                  for i, t in CORPUS if i.startswith("q")), encoding="utf-8")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\n", encoding="utf-8")
    return folder


def test_beir_leaves_out_the_query_itself_as_beirs_evaluation_does(beir_folder):
    code, out, err = run_cli(["evaluate", "--beir", beir_folder, "--json"])
    assert code == 0, err
    report = json.loads(out)
    # each query's own text ranks first; left out, the judged document is first: BEIR's 1.0
    for method in ("bm25", "cosine"):
        assert report["methods"][method]["ndcg@10"] == pytest.approx(1.0), method
        assert report["methods"][method]["map"] == pytest.approx(1.0), method
    assert "the query itself" in err and "ignore_identical_ids" in err


def test_queries_keep_a_document_of_the_querys_id_as_trec_eval_does(beir_folder):
    code, out, err = run_cli(["evaluate", "--queries", beir_folder / "queries.jsonl", "--qrels",
                              beir_folder / "qrels" / "test.tsv", "--corpus", beir_folder / "corpus.jsonl", "--json"])
    assert code == 0, err
    report = json.loads(out)
    # the query's own document is an unjudged first hit, the judged one second
    assert report["methods"]["bm25"]["map"] == pytest.approx(0.5)
    assert "the query itself" not in err

"""`learnsim evaluate --run` where judged queries are missing from the run file: left out as
trec_eval and pytrec_eval leave them out, and the figures counting them as 0 (trec_eval -c,
ir_measures, Pyserini's BEIR figures) given beside, so that either can be compared."""
import json

import pytest

from conftest import run_cli


@pytest.fixture
def files(tmp_path):
    # q1 ranks its relevant document first, q2 second; q3 and q4 are judged but not in the run
    (tmp_path / "run.trec").write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\nq2 Q0 c 1 2.0 t\nq2 Q0 d 2 1.0 t\n",
                                       encoding="utf-8")
    (tmp_path / "qrels.txt").write_text("q1 0 a 1\nq2 0 d 1\nq3 0 e 1\nq4 0 f 2\n", encoding="utf-8")
    return tmp_path


def test_the_figures_counting_unranked_queries_as_zero_are_given(files):
    args = ["evaluate", "--run", files / "run.trec", "--qrels", files / "qrels.txt"]
    code, out, err = run_cli(args + ["--json"])
    assert code == 0, err
    report = json.loads(out)
    # over the two ranked queries, as trec_eval: MAP (1 + 0.5) / 2
    assert report["methods"]["run"]["map"] == pytest.approx(0.75)
    # over the four judged ones, as trec_eval -c: (1 + 0.5 + 0 + 0) / 4
    zero = report["with_unranked_as_zero"]
    assert zero["queries"] == 4
    assert zero["run"]["map"] == pytest.approx(0.375)
    assert zero["run"]["ndcg@10"] == pytest.approx((1 + 1 / 1.5849625007211563) / 4)
    code, text, err = run_cli(args)
    assert code == 0
    assert "2 judged queries" in err and "0.375" in err and "-c" in err and "ir_measures" in err


def test_the_zero_figures_agree_with_ir_measures(files):
    ir_measures = pytest.importorskip("ir_measures")
    code, out, err = run_cli(["evaluate", "--run", files / "run.trec", "--qrels", files / "qrels.txt", "--json"])
    zero = json.loads(out)["with_unranked_as_zero"]["run"]
    measures = {"map": ir_measures.AP, "ndcg@10": ir_measures.nDCG @ 10, "p@10": ir_measures.P @ 10,
                "recall@100": ir_measures.R @ 100}
    theirs = ir_measures.calc_aggregate(list(measures.values()),
                                        ir_measures.read_trec_qrels(str(files / "qrels.txt")),
                                        ir_measures.read_trec_run(str(files / "run.trec")))
    for name, measure in measures.items():
        assert zero[name] == pytest.approx(theirs[measure], abs=1e-12), name


def test_nothing_is_added_where_every_judged_query_is_ranked(files):
    (files / "qrels.txt").write_text("q1 0 a 1\nq2 0 d 1\n", encoding="utf-8")
    code, out, err = run_cli(["evaluate", "--run", files / "run.trec", "--qrels", files / "qrels.txt", "--json"])
    assert code == 0 and "with_unranked_as_zero" not in json.loads(out) and "-c" not in err

"""``learnsim evaluate --measures``: the measures of a retrieval run named as ir_measures, trec_eval
or BEIR name them (nDCG@1,3,5,10, RR@10, AP@100, R@100, recip_rank), MRR@10 in the default table
beside MAP, nDCG@10, P@10 and recall@100, each figure equal to trec_eval's (pytrec_eval's) per
query, and an unknown name answered by exit status 2 and one line naming it and the known ones."""
from __future__ import annotations

import json

import pytest

from conftest import require_corpus, run_cli
from learnsim.evaluation import per_query_run_measures

# q1's d1 and d4 tie: trec_eval ranks d4 first, so q1's first relevant document (d1, level 2) is
# third (RR 1/3, not 1/2); q3 has no relevant document; q5 no judgement
QRELS = "q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq1 0 d9 1\nq2 0 d5 1\nq3 0 d7 0\n"
RUN = ("q1 Q0 d3 1 0.9 t\nq1 Q0 d1 2 0.8 t\nq1 Q0 d4 3 0.8 t\nq1 Q0 d2 4 0.5 t\n"
       "q2 Q0 d6 1 1.0 t\nq2 Q0 d5 2 0.5 t\nq3 Q0 d7 1 0.3 t\nq5 Q0 d1 1 2.0 t\n")


def ok(args):
    code, out, err = run_cli(args)
    assert code == 0, (args, code, err)
    return out, err


def one_line_error(args, *fragments):
    code, out, err = run_cli(args)
    assert code == 2, (args, code, out, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS, encoding="utf-8")
    (tmp_path / "run.trec").write_text(RUN, encoding="utf-8")
    return ["evaluate", "--run", tmp_path / "run.trec", "--qrels", tmp_path / "qrels.txt"]


def test_mrr_at_10_is_in_the_default_report_and_table(files):
    out = json.loads(ok(files + ["--json"])[0])
    assert out["measures"] == ["map", "ndcg@10", "p@10", "recall@100", "mrr@10"]
    assert out["methods"]["run"]["mrr@10"] == pytest.approx((1 / 3 + 1 / 2 + 0) / 3, abs=1e-12)
    assert out["per_query"]["run"]["q1"]["mrr@10"] == pytest.approx(1 / 3, abs=1e-12)
    text, _ = ok(files)
    rows = [line.split() for line in text.splitlines()]
    assert [r[0] for r in rows if r and r[0] in ("MAP", "nDCG@10", "P@10", "recall@100", "MRR@10")] == \
        ["MAP", "nDCG@10", "P@10", "recall@100", "MRR@10"]
    assert ["MRR@10", f"{(1 / 3 + 1 / 2) / 3:.3f}"] in rows


def test_measures_named_by_ir_measures_trec_eval_and_beir(files, tmp_path):
    asked = "nDCG@1,nDCG@3 ndcg_cut_10,RR@1,recip_rank,AP@2,R@100,P@5,ndcg_cut.10"
    out = json.loads(ok(files + ["--measures", asked, "--json"])[0])
    # one name each, in the order asked, the repeated nDCG@10 once
    names = ["ndcg@1", "ndcg@3", "ndcg@10", "mrr@1", "mrr", "map@2", "recall@100", "p@5"]
    assert out["measures"] == names and list(out["methods"]["run"]) == names
    from learnsim.datasets import read_qrels, read_trec_run

    run, qrels = read_trec_run(tmp_path / "run.trec"), read_qrels(tmp_path / "qrels.txt")
    expected = per_query_run_measures(run, qrels, names)
    assert set(out["per_query"]["run"]) == set(expected)
    for qid, values in expected.items():
        assert out["per_query"]["run"][qid] == pytest.approx(values, abs=1e-12), qid
    assert out["per_query"]["run"]["q1"]["mrr@1"] == 0.0 and out["per_query"]["run"]["q2"]["mrr"] == 0.5
    text, _ = ok(files + ["--measures", asked])
    for title in ("nDCG@1", "nDCG@3", "nDCG@10", "MRR@1", "MRR", "MAP@2", "recall@100", "P@5"):
        assert any(line.split()[:1] == [title] for line in text.splitlines()), title
    assert "recip_rank" in text and "map_cut.2" in text        # the trec_eval names, said once above
    # repeated --measures add up
    again = json.loads(ok(files + ["--measures", "RR@10", "--measures", "AP", "--json"])[0])
    assert again["measures"] == ["mrr@10", "map"]


def test_measures_of_the_unranked_queries_counted_as_zero_follow_the_asked_ones(files, tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS + "q4 0 d1 1\n", encoding="utf-8")
    out = json.loads(ok(files + ["--measures", "RR@10,nDCG@3", "--json"])[0])
    zero = out["with_unranked_as_zero"]
    assert zero["queries"] == 4 and set(zero["run"]) == {"mrr@10", "ndcg@3"}
    assert zero["run"]["mrr@10"] == pytest.approx(out["methods"]["run"]["mrr@10"] * 3 / 4)
    _, err = ok(files + ["--measures", "RR@10,nDCG@3"])
    assert "MRR@10" in err and "nDCG@3" in err and "MAP" not in err


@pytest.mark.parametrize("asked, bad", [("nDCG@10,ERR@20", "ERR@20"), ("RR@0", "RR@0"), ("P", "P"),
                                        ("ndcg@10,,", None), (" ", None)])
def test_an_unknown_measure_is_one_line_naming_it_and_the_known_ones(files, asked, bad):
    line = one_line_error(files + ["--measures", asked], "--measures")
    if bad is None:
        assert "names no measure" in line or "empty" in line
    else:
        assert repr(bad) in line and "nDCG@k" in line and "RR@k" in line and "recip_rank" in line


def test_measures_go_with_retrieval_runs_only(tmp_path):
    (tmp_path / "train.tsv").write_text("a\tone two\na\tone three\nb\tfour five\nb\tfour six\n", encoding="utf-8")
    one_line_error(["evaluate", "--model", tmp_path / "missing.npz", "--input", tmp_path / "train.tsv",
                    "--measures", "RR@10"], "--measures")


def test_the_queries_of_a_collection_with_measures(tmp_path):
    (tmp_path / "docs.tsv").write_text("d1\tpassword reset help\nd2\tdouble charge refund\nd3\tapp crashes at start\n"
                                       "d4\treset the app\n", encoding="utf-8")
    (tmp_path / "queries.tsv").write_text("q1\tpassword reset\nq2\tcharged twice refund\nq3\tapp crash\n",
                                          encoding="utf-8")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\nq3 0 d4 1\n", encoding="utf-8")
    args = ["evaluate", "--queries", tmp_path / "queries.tsv", "--qrels", tmp_path / "qrels.txt",
            "--corpus", tmp_path / "docs.tsv"]
    out = json.loads(ok(args + ["--measures", "RR@10,nDCG@3,AP@100", "--json"])[0])
    assert out["measures"] == ["mrr@10", "ndcg@3", "map@100"]
    for method in ("bm25", "cosine"):
        assert set(out["methods"][method]) == {"mrr@10", "ndcg@3", "map@100"}
        assert out["methods"][method]["mrr@10"] == pytest.approx(
            sum(q["mrr@10"] for q in out["per_query"][method].values()) / 3)
    default = json.loads(ok(args + ["--json"])[0])
    assert default["measures"] == ["map", "ndcg@10", "p@10", "recall@100", "mrr@10"]
    assert default["methods"]["bm25"]["mrr@10"] == out["methods"]["bm25"]["mrr@10"]


@pytest.mark.corpus
def test_cisi_run_file_measures_equal_pytrec_eval(tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    folder = require_corpus("ir/cisi")
    from learnsim.baseline import LexicalBaselines
    from learnsim.datasets import read_id_texts, read_qrels

    doc_ids, texts = read_id_texts(folder / "CISI.ALL")
    query_ids, queries = read_id_texts(folder / "CISI.QRY")
    lexical = LexicalBaselines(texts)
    idx, scores = lexical.scorer("bm25").search(lexical.query_counts(queries), 1000)
    with open(tmp_path / "bm25.trec", "w", encoding="utf-8") as f:
        for r, q in enumerate(query_ids):
            hits = [(doc_ids[j], float(v)) for j, v in zip(idx[r], scores[r]) if v != 0]
            f.writelines(f"{q} Q0 {d} {rank} {v!r} bm25\n" for rank, (d, v) in enumerate(hits, start=1))
    out = json.loads(ok(["evaluate", "--run", tmp_path / "bm25.trec", "--qrels", folder / "CISI.REL", "--measures",
                         "RR@10,RR,nDCG@1,nDCG@5,nDCG@100,AP@10,R@1000,P@20", "--json"])[0])
    assert out["queries"] == 76
    from learnsim.datasets import read_trec_run

    run, qrels = read_trec_run(tmp_path / "bm25.trec"), read_qrels(folder / "CISI.REL")
    run = {q: v for q, v in run.items() if q in qrels}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "ndcg_cut.1", "ndcg_cut.5", "ndcg_cut.100",
                                                    "map_cut.10", "recall.1000", "P.20"}).evaluate(run)
    names = {"mrr": "recip_rank", "ndcg@1": "ndcg_cut_1", "ndcg@5": "ndcg_cut_5", "ndcg@100": "ndcg_cut_100",
             "map@10": "map_cut_10", "recall@1000": "recall_1000", "p@20": "P_20"}
    ours = out["per_query"]["run"]
    assert set(ours) == set(theirs)
    for qid, values in theirs.items():
        rr = values["recip_rank"]
        assert ours[qid]["mrr@10"] == pytest.approx(rr if rr >= 0.1 - 1e-12 else 0.0, abs=1e-12), qid
        for name, trec in names.items():
            assert ours[qid][name] == pytest.approx(values[trec], abs=1e-12), (qid, name)

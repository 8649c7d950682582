"""learnsim.evaluation's run measures beside trec_eval (through pytrec_eval, where installed) on
the cases where implementations part: scores that differ only beyond single precision, graded and
negative judgements, queries without a relevant document, unjudged and missing documents."""
import numpy as np
import pytest

from learnsim.evaluation import per_query_run_measures, run_report, trec_ranking

NAMES = {"map": "map", "ndcg@10": "ndcg_cut_10", "p@10": "P_10", "recall@100": "recall_100"}


def _pytrec(qrels, run):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    return pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.10", "recall.100"}).evaluate(run)


def test_scores_equal_in_single_precision_tie_as_in_trec_eval():
    # trec_eval holds a score as a C float: 1 + 1e-9 and 1 are one score there, and the tie goes
    # to the larger document id ("b"), so the relevant "a" is second
    run = {"q": {"a": 1.0 + 1e-9, "b": 1.0}}
    assert trec_ranking(run["q"]) == ["b", "a"]
    assert per_query_run_measures(run, {"q": {"a": 1}}, ("map",)) == {"q": {"map": 0.5}}
    # apart in single precision, the higher score comes first whatever the ids
    assert trec_ranking({"a": 1.0 + 1e-6, "b": 1.0}) == ["a", "b"]
    # beyond single precision's range both are infinite there: a tie too, without a warning
    with np.errstate(all="raise"):
        assert trec_ranking({"a": 1e300, "b": 1e39}) == ["b", "a"]


def test_near_ties_agree_with_pytrec_eval():
    rng = np.random.default_rng(1)
    docs = [f"d{i:02d}" for i in range(50)]
    qrels, run = {}, {}
    for q in range(10):
        judged = rng.choice(docs, size=15, replace=False)
        qrels[f"q{q}"] = {d: int(rng.integers(-1, 3)) for d in judged}
        retrieved = rng.choice(docs, size=35, replace=False)
        # a few distinct values, each spread by less than single precision tells apart
        run[f"q{q}"] = {d: 10.0 + float(rng.integers(0, 5)) + float(rng.uniform(0, 1e-7)) for d in retrieved}
    theirs = _pytrec(qrels, run)
    ours = per_query_run_measures(run, qrels)
    assert set(ours) == set(theirs)
    for qid in ours:
        for m, name in NAMES.items():
            assert ours[qid][m] == pytest.approx(theirs[qid][name], abs=1e-12), (qid, m)


@pytest.mark.parametrize("case", [
    # graded: the level is the gain (trec_eval's and BEIR's ndcg_cut), not 2**level - 1
    ({"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"q": {"a": 1, "b": 2, "c": 3, "e": 2}}),
    # negative levels are not relevant and gain nothing, in the ranking or the ideal
    ({"q": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5}}, {"q": {"a": -1, "b": 2, "c": -2, "d": 1}}),
    # judged, but nothing relevant: 0 everywhere, counted
    ({"q": {"a": 3.0, "b": 2.0}}, {"q": {"a": -1, "b": 0}}),
    # unjudged documents count as not relevant; a relevant document the run misses counts in R
    ({"q": {"x": 3.0, "a": 2.0, "y": 1.0}}, {"q": {"a": 1, "b": 1}}),
    # a run shorter than k: P@10 still divides by 10
    ({"q": {"a": 1.0}}, {"q": {"a": 2, "b": 1}}),
    # a query judged but given no document, and one of the run without judgements
    ({"q": {}, "r": {"a": 1.0}, "z": {"a": 1.0}}, {"q": {"a": 1}, "r": {"a": 1}}),
])
def test_edge_cases_agree_with_pytrec_eval(case):
    run, qrels = case
    theirs = _pytrec(qrels, run)
    ours = per_query_run_measures(run, qrels)
    assert set(ours) == set(theirs)
    for qid in ours:
        for m, name in NAMES.items():
            assert ours[qid][m] == pytest.approx(theirs[qid][name], abs=1e-12), (qid, m)
    report = run_report(run, qrels)
    for m, name in NAMES.items():
        assert report[m] == pytest.approx(np.mean([v[name] for v in theirs.values()]), abs=1e-12)

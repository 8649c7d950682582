"""The run measures a user of Pyserini, BEIR or MS MARCO asks for by name (ir_measures' nDCG@k,
RR@k, AP, AP@k, P@k, R@k, RR; trec_eval's ndcg_cut_10, recip_rank, recall_100): each equal per
query to trec_eval's (through pytrec_eval) on runs with many tied scores and on a real collection,
and to ir_measures' where ir_measures orders as trec_eval does; an unknown name is a ValueError
naming it and the known ones."""
import numpy as np
import pytest

from conftest import require_corpus
from learnsim.evaluation import RUN_MEASURES, per_query_run_measures, run_measure_names, run_report

# learnsim's name -> trec_eval's (pytrec_eval's key); the cut reciprocal rank has none (below)
TREC = {"mrr": "recip_rank", "map@10": "map_cut_10", "map": "map", "ndcg": "ndcg", "ndcg@3": "ndcg_cut_3",
        "ndcg@10": "ndcg_cut_10", "p@5": "P_5", "recall@5": "recall_5", "recall@100": "recall_100"}
ASKED = ("RR@10", "RR@3", "RR", "AP@10", "AP", "nDCG", "nDCG@3", "nDCG@10", "P@5", "R@5", "R@100")


def _pytrec(qrels, run):
    """trec_eval's measures of TREC's names, and RR@k as trec_eval -M k gives it: recip_rank where
    the first relevant document is within the top k (trec_eval sorts, then keeps the top k), else 0."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    names = {"recip_rank", "map_cut.10", "map", "ndcg", "ndcg_cut.3", "ndcg_cut.10", "P.5", "recall.5", "recall.100"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, names).evaluate(run)
    for values in theirs.values():
        rr = values["recip_rank"]
        for k in (10, 3):
            values[f"rr@{k}"] = rr if rr > 0 and round(1 / rr) <= k else 0.0
    return theirs


def _reference_key(name):
    return {"mrr@10": "rr@10", "mrr@3": "rr@3"}.get(name, TREC.get(name))


def _assert_equal_to_trec_eval(run, qrels):
    theirs = _pytrec(qrels, run)
    ours = per_query_run_measures(run, qrels, ASKED)
    assert set(ours) == set(theirs)
    canonical = run_measure_names(ASKED)
    for qid in ours:
        for asked, name in zip(ASKED, canonical):
            assert ours[qid][asked] == pytest.approx(theirs[qid][_reference_key(name)], abs=1e-12), (qid, asked)


def test_names_of_ir_measures_trec_eval_and_learnsim_meet_in_one_name():
    assert run_measure_names(ASKED) == ("mrr@10", "mrr@3", "mrr", "map@10", "map", "ndcg", "ndcg@3", "ndcg@10",
                                        "p@5", "recall@5", "recall@100")
    same = ("ndcg_cut_10", "ndcg_cut.10", "nDCG@10", "NDCG@10", "ndcg@10")
    assert run_measure_names(same) == ("ndcg@10",)
    assert run_measure_names(("recip_rank", "RR", "MRR")) == ("mrr",)
    assert run_measure_names(("MRR@10", "RR@10", "rr_cut_10")) == ("mrr@10",)
    assert run_measure_names(("map_cut_100", "MAP@100", "AP@100")) == ("map@100",)
    assert run_measure_names(("P_10", "P.10", "P@10", "recall_100", "R@100")) == ("p@10", "recall@100")
    # the default: the four of before and MRR@10, MS MARCO's measure
    assert RUN_MEASURES == ("map", "ndcg@10", "p@10", "recall@100", "mrr@10")


@pytest.mark.parametrize("name", ["MRR@0", "nDCG@", "P", "R", "ERR@10", "P(rel=2)@10", "ndcg@١٠", ""])
def test_an_unknown_name_is_refused_naming_it_and_the_known_ones(name):
    with pytest.raises(ValueError) as info:
        per_query_run_measures({"q": {"a": 1.0}}, {"q": {"a": 1}}, ("map", name))
    message = str(info.value)
    assert repr(name) in message and "\n" not in message
    for known in ("nDCG@k", "RR@k", "AP@k", "P@k", "R@k", "recip_rank"):
        assert known in message, known


def test_reciprocal_rank_by_hand_with_a_tie():
    # a and b tie: trec_eval puts the larger id first, so the relevant a is second (RR 0.5), where
    # ascending ids (MS MARCO's script, and ir_measures' RR@k through it) would put it first
    run = {"q": {"a": 1.0, "b": 1.0, "c": 0.5}, "r": {"x": 3.0, "y": 2.0, "z": 1.0}, "s": {"x": 1.0}}
    qrels = {"q": {"a": 1}, "r": {"z": 2, "w": 1}, "s": {"x": 0}}
    got = per_query_run_measures(run, qrels, ("RR", "RR@1", "RR@2", "RR@3"))
    assert got["q"] == {"RR": 0.5, "RR@1": 0.0, "RR@2": 0.5, "RR@3": 0.5}
    assert got["r"] == pytest.approx({"RR": 1 / 3, "RR@1": 0.0, "RR@2": 0.0, "RR@3": 1 / 3})
    assert got["s"] == {"RR": 0.0, "RR@1": 0.0, "RR@2": 0.0, "RR@3": 0.0}     # nothing relevant: 0, counted
    report = run_report(run, qrels, ("RR@10",))
    assert report["RR@10"] == pytest.approx((0.5 + 1 / 3 + 0.0) / 3) and report["n_queries"] == 3


def test_ap_cut_divides_by_every_relevant_document_as_map_cut_does():
    # map_cut.2: the precisions of the relevant documents in the top 2, over R = 3 (not over min(R, 2))
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    qrels = {"q": {"a": 1, "c": 1, "d": 1}}
    assert per_query_run_measures(run, qrels, ("AP@2", "AP"))["q"] == pytest.approx(
        {"AP@2": 1 / 3, "AP": (1 + 2 / 3) / 3})


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_named_measure_equals_trec_eval_on_runs_with_many_ties(seed):
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(60)] + [str(i) for i in range(8, 12)]      # "9" after "10" in trec_eval
    qrels, run = {}, {}
    for q in range(15):
        judged = rng.choice(docs, size=12, replace=False)
        qrels[f"q{q}"] = {d: int(rng.integers(-1, 4)) for d in judged}
        retrieved = rng.choice(docs, size=int(rng.integers(1, 45)), replace=False)
        # four distinct scores, and near ties single precision does not tell apart
        run[f"q{q}"] = {d: float(rng.integers(0, 4)) + float(rng.uniform(0, 1e-8)) for d in retrieved}
    _assert_equal_to_trec_eval(run, qrels)


def test_equal_to_ir_measures_on_a_run_without_ties():
    ir_measures = pytest.importorskip("ir_measures")
    rng = np.random.default_rng(5)
    docs = [f"d{i}" for i in range(80)]
    qrels, run = {}, {}
    for q in range(20):
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in rng.choice(docs, size=10, replace=False)}
        retrieved = rng.choice(docs, size=50, replace=False)
        run[f"q{q}"] = {d: float(s) for d, s in zip(retrieved, rng.permutation(50))}
    _assert_equal_to_ir_measures(ir_measures, run, qrels, ASKED)


def _assert_equal_to_ir_measures(ir_measures, run, qrels, asked):
    measures = [ir_measures.parse_measure(name) for name in asked]
    theirs = {}
    for metric in ir_measures.iter_calc(measures, qrels, run):
        theirs.setdefault(metric.query_id, {})[str(metric.measure)] = metric.value
    ours = per_query_run_measures(run, qrels, asked)
    # ir_measures counts a judged query the run lacks as 0; every query here is in the run
    assert set(ours) == set(theirs)
    for qid in ours:
        for name, measure in zip(asked, measures):
            assert ours[qid][name] == pytest.approx(theirs[qid][str(measure)], abs=1e-12), (qid, name)


@pytest.fixture(scope="module")
def cisi_bm25_run():
    """BM25's run of CISI's judged queries (1000 deep) and CISI's judgements, as evaluate makes them."""
    folder = require_corpus("ir/cisi")
    from learnsim.baseline import LexicalBaselines
    from learnsim.datasets import read_id_texts, read_qrels

    doc_ids, texts = read_id_texts(folder / "CISI.ALL")
    query_ids, queries = read_id_texts(folder / "CISI.QRY")
    qrels = read_qrels(folder / "CISI.REL", query_ids=query_ids)
    judged = [i for i, q in enumerate(query_ids) if q in qrels]
    lexical = LexicalBaselines(texts)
    idx, scores = lexical.scorer("bm25").search(lexical.query_counts([queries[i] for i in judged]), 1000)
    run = {query_ids[i]: {doc_ids[j]: float(v) for j, v in zip(idx[r], scores[r]) if v != 0}
           for r, i in enumerate(judged)}
    return run, qrels


@pytest.mark.corpus
def test_every_named_measure_equals_trec_eval_on_cisi(cisi_bm25_run):
    run, qrels = cisi_bm25_run
    assert len(run) == 76
    _assert_equal_to_trec_eval(run, qrels)


@pytest.mark.corpus
def test_every_named_measure_equals_ir_measures_on_cisi(cisi_bm25_run):
    ir_measures = pytest.importorskip("ir_measures")
    run, qrels = cisi_bm25_run
    # ir_measures' RR@k is MS MARCO's script, which breaks ties by ascending id: compared on the
    # queries whose first ten hits tie nowhere (in single precision, as trec_eval holds scores)
    top = {q: sorted(np.float32(list(scores.values())), reverse=True)[:11] for q, scores in run.items()}
    untied = {q for q, s in top.items() if len(set(s)) == len(s)}
    assert len(untied) > 40
    _assert_equal_to_ir_measures(ir_measures, {q: run[q] for q in untied}, {q: qrels[q] for q in untied}, ASKED)
    # the other measures through pytrec_eval, with trec_eval's order, on every query
    _assert_equal_to_ir_measures(ir_measures, run, {q: qrels[q] for q in run}, [a for a in ASKED if "@" not in a
                                                                                   or not a.startswith("RR")])

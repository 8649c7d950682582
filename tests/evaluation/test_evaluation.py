"""Tests for learnsim.evaluation: hand-computed cases, agreement with trec_eval,
blockwise == full-matrix results, brute-force references and error cases."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from learnsim.evaluation import _evaluation as ev

LEVEL_KEYS = [f"iprec_at_recall_{r:.2f}" for r in np.arange(11) / 10]


# --------------------------------------------------------------------------- hand-computed retrieval

# One query, five documents already in score order; documents 0 and 2 are relevant.
SCORES_1 = np.array([[0.9, 0.8, 0.7, 0.6, 0.5]])
REL_1 = np.array([[1, 0, 1, 0, 0]], dtype=bool)


def test_average_precision_hand_computed():
    # relevant at ranks 1 and 3: (1/1 + 2/3) / 2
    assert ev.average_precision(SCORES_1, REL_1) == pytest.approx([(1 + 2 / 3) / 2])


def test_r_precision_and_bep_hand_computed():
    # R = 2, one relevant document in the top 2
    assert ev.r_precision(SCORES_1, REL_1) == pytest.approx([0.5])
    assert ev.break_even_point(SCORES_1, REL_1) == pytest.approx([0.5])


def test_precision_at_k_divides_by_k_even_past_the_end():
    assert ev.precision_at_k(SCORES_1, REL_1, k=1) == pytest.approx([1.0])
    assert ev.precision_at_k(SCORES_1, REL_1, k=2) == pytest.approx([0.5])
    # trec_eval's P_10 on a 5-document ranking: 2 / 10
    assert ev.precision_at_k(SCORES_1, REL_1, k=10) == pytest.approx([0.2])


def test_interpolated_precision_hand_computed():
    # precisions at the relevant documents: 1 (rank 1) and 2/3 (rank 3).
    # Levels 0.0-0.5 need the 1st relevant document (floor(r*2 + 0.9) <= 1), 0.6-1.0 the 2nd.
    expected = np.array([1.0] * 6 + [2 / 3] * 5)
    np.testing.assert_allclose(ev.interpolated_precision_at_recall(SCORES_1, REL_1)[0], expected)
    assert ev.ap11(SCORES_1, REL_1) == pytest.approx([expected.mean()])


def test_interpolation_takes_max_over_later_ranks():
    # relevant at ranks 2 and 3: precisions 1/2 and 2/3; interpolation lifts level 0 to 2/3
    scores = np.array([[4.0, 3.0, 2.0, 1.0]])
    rel = np.array([[0, 1, 1, 0]], dtype=bool)
    np.testing.assert_allclose(ev.interpolated_precision_at_recall(scores, rel)[0], [2 / 3] * 11)


def test_trec_eval_rounding_of_recall_levels():
    # R = 3, level 0.7: 0.7 * 3 + 0.9 < 3 in doubles, so trec_eval uses the 2nd relevant doc.
    scores = -np.arange(10.0)[None, :]
    rel = np.zeros((1, 10), dtype=bool)
    rel[0, [1, 2, 9]] = True  # precisions 1/2, 2/3, 3/10
    iprec = ev.interpolated_precision_at_recall(scores, rel)[0]
    assert iprec[7] == pytest.approx(2 / 3)
    assert iprec[8] == pytest.approx(0.3)


def test_ties_are_broken_by_ascending_document_index():
    scores = np.zeros((1, 4))
    rel = np.array([[0, 0, 1, 0]], dtype=bool)
    assert ev.average_precision(scores, rel) == pytest.approx([1 / 3])
    assert ev.precision_at_k(scores, rel, k=3) == pytest.approx([1 / 3])


def test_exclude_removes_documents_from_ranking_and_relevant_set():
    exclude = np.array([[1, 0, 0, 0, 0]], dtype=bool)
    # ranking becomes docs 1, 2, 3, 4 with only doc 2 relevant, at rank 2
    assert ev.average_precision(SCORES_1, REL_1, exclude=exclude) == pytest.approx([0.5])
    assert ev.r_precision(SCORES_1, REL_1, exclude=exclude) == pytest.approx([0.0])
    assert ev.precision_at_k(SCORES_1, REL_1, k=2, exclude=exclude) == pytest.approx([0.5])


def test_exclude_self_equals_explicit_diagonal_mask():
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(12, 12))
    rel = rng.random((12, 12)) < 0.4
    np.fill_diagonal(rel, True)  # a query is "relevant to itself"; leave-one-out must drop it
    a = ev.per_query_measures(scores, rel, exclude_self=True, measures=("ap", "p@3", "ap11"))
    b = ev.per_query_measures(scores, rel, exclude=np.eye(12, dtype=bool), measures=("ap", "p@3", "ap11"))
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    # the self match at the top would give precision 1 at rank 1, so the two must differ
    c = ev.per_query_measures(scores + 100 * np.eye(12), rel, exclude_self=True, measures=("ap",))
    d = ev.per_query_measures(scores + 100 * np.eye(12), rel, measures=("ap",))
    np.testing.assert_array_equal(c["ap"], a["ap"])
    assert not np.allclose(c["ap"], d["ap"], equal_nan=True)


def test_query_without_relevant_document_is_nan_and_skipped_in_report():
    scores = np.array([[3.0, 2.0, 1.0], [3.0, 2.0, 1.0]])
    rel = np.array([[0, 1, 0], [0, 0, 0]], dtype=bool)
    ap = ev.average_precision(scores, rel)
    assert ap[0] == pytest.approx(0.5) and np.isnan(ap[1])
    report = ev.retrieval_report(scores, rel, measures=("map", "p@1"))
    assert report == {"map": pytest.approx(0.5), "p@1": pytest.approx(0.0),
                      "n_queries": 1, "n_skipped_queries": 1}


def test_report_keeps_caller_names_and_means_over_queries():
    scores = np.array([[3.0, 2.0, 1.0], [3.0, 2.0, 1.0]])
    rel = np.array([[1, 0, 0], [0, 0, 1]], dtype=bool)
    report = ev.retrieval_report(scores, rel, measures=("ap", "map", "r_precision", "bep", "ap11", "p@10"))
    assert report["ap"] == report["map"] == pytest.approx((1 + 1 / 3) / 2)
    assert report["r_precision"] == report["bep"] == pytest.approx(0.5)
    assert report["p@10"] == pytest.approx(0.1)
    assert report["ap11"] == pytest.approx((1 + 1 / 3) / 2)  # one relevant doc: iprec is flat
    assert report["n_queries"] == 2


def test_default_measures():
    report = ev.retrieval_report(SCORES_1, REL_1)
    assert set(report) == {"ap11", "r_precision", "ap", "p@10", "bep", "n_queries", "n_skipped_queries"}


def test_precision_recall_curve_averages_queries():
    scores = np.array([[3.0, 2.0, 1.0], [3.0, 2.0, 1.0], [1.0, 2.0, 3.0]])
    rel = np.array([[1, 0, 0], [0, 0, 1], [0, 0, 0]], dtype=bool)
    levels, precision = ev.precision_recall_curve(scores, rel)
    np.testing.assert_array_equal(levels, np.arange(11) / 10)
    np.testing.assert_allclose(precision, np.full(11, (1 + 1 / 3) / 2))


def test_blocks_of_any_size_give_the_same_result():
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(17, 40))
    rel = rng.random((17, 40)) < 0.2
    exclude = rng.random((17, 40)) < 0.1
    measures = ("ap", "ap11", "r_precision", "p@5", "iprec")
    full = ev.per_query_measures(scores, rel, exclude=exclude, measures=measures)
    for block_size in (1, 4, 17, 100):
        blocked = ev.per_query_measures(scores, rel, exclude=exclude, measures=measures,
                                        block_size=block_size)
        for key in measures:
            np.testing.assert_array_equal(blocked[key], full[key])


def test_callable_and_sparse_inputs_match_arrays():
    rng = np.random.default_rng(1)
    scores = rng.normal(size=(9, 25))
    rel = rng.random((9, 25)) < 0.3
    full = ev.retrieval_report(scores, rel)
    assert ev.retrieval_report(lambda rows: scores[rows], rel, block_size=2) == full
    assert ev.retrieval_report(scores, sp.csr_matrix(rel)) == full
    assert ev.retrieval_report(lambda rows: scores[rows], lambda rows: rel[rows], n_queries=9) == full
    with pytest.raises(ValueError, match="n_queries"):
        ev.retrieval_report(lambda rows: scores[rows], lambda rows: rel[rows])


def _reference_measures(score_row, rel_row, excl_row, k=3):
    """Textbook definitions on an explicit ranking, one query at a time."""
    docs = [j for j in range(len(score_row)) if not excl_row[j]]
    ranking = sorted(docs, key=lambda j: (-score_row[j], j))
    hits = np.cumsum([rel_row[j] for j in ranking])
    n_rel = hits[-1] if len(hits) else 0
    if n_rel == 0:
        return None
    precision = hits / np.arange(1, len(ranking) + 1)
    at_rel = [precision[i] for i, j in enumerate(ranking) if rel_row[j]]
    recall = hits / n_rel
    iprec = [max(precision[recall >= r - 1e-12]) for r in np.arange(11) / 10]
    return {"ap": np.mean(at_rel), "r_precision": hits[n_rel - 1] / n_rel,
            "p@3": hits[min(k, len(hits)) - 1] / k, "iprec": iprec}


@pytest.fixture(params=["argsort", "binary-search"])
def ranking_path(request, monkeypatch):
    """Run a test through both ways of ranking: the vectorised argsort of a block and the
    per-row binary search used for very wide rankings."""
    if request.param == "binary-search":
        monkeypatch.setattr(ev, "_ARGSORT_MAX_DOCS", 0)
    return request.param


@pytest.mark.parametrize("seed", range(4))
def test_matches_reference_with_ties_and_exclusions(seed, ranking_path):
    rng = np.random.default_rng(seed)
    scores = np.round(rng.normal(size=(15, 30)), 1)  # many ties
    scores[::4] = np.round(scores[::4])  # even more ties in some queries
    rel = rng.random((15, 30)) < 0.3
    exclude = rng.random((15, 30)) < 0.2
    ours = ev.per_query_measures(scores, rel, exclude=exclude, block_size=4,
                                 measures=("ap", "r_precision", "p@3", "iprec"))
    for i in range(15):
        ref = _reference_measures(scores[i], rel[i], exclude[i])
        if ref is None:
            assert np.isnan(ours["ap"][i])
            continue
        for key in ("ap", "r_precision", "p@3"):
            assert ours[key][i] == pytest.approx(ref[key], abs=1e-12)
        # the textbook "recall >= r" and trec_eval's floor(r*R + 0.9) differ only when r*R
        # has a fractional part of about 0.1 or less; compare the levels where they agree
        n_rel = (rel[i] & ~exclude[i]).sum()
        for j, r in enumerate(np.arange(11) / 10):
            if np.floor(r * n_rel + 0.9) == max(np.ceil(r * n_rel - 1e-9), 0) or r == 0:
                assert ours["iprec"][i, j] == pytest.approx(ref["iprec"][j], abs=1e-12)


# --------------------------------------------------------------------------- trec_eval agreement

def _random_run(rng):
    n_queries = int(rng.integers(1, 8))
    n_docs = int(rng.integers(1, 120))
    scores = rng.normal(size=(n_queries, n_docs))  # continuous: no ties
    density = rng.uniform(0.01, 0.6)
    rel = rng.random((n_queries, n_docs)) < density
    rel[~rel.any(axis=1), rng.integers(0, n_docs)] = True  # every query has a relevant doc
    return scores, rel


def _trec_eval(scores, rel, measures):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    # every document is in the run, so trec_eval ranks the same collection as we do
    qrel = {f"q{i}": {f"d{j}": int(rel[i, j]) for j in range(rel.shape[1])} for i in range(len(rel))}
    run = {f"q{i}": {f"d{j}": float(scores[i, j]) for j in range(scores.shape[1])}
           for i in range(len(scores))}
    result = pytrec_eval.RelevanceEvaluator(qrel, measures).evaluate(run)
    return [result[f"q{i}"] for i in range(len(scores))]


@pytest.mark.parametrize("seed", range(12))
def test_agrees_with_trec_eval(seed, ranking_path):
    pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(seed)
    for _ in range(5):
        scores, rel = _random_run(rng)
        ours = ev.per_query_measures(scores, rel, measures=("ap", "r_precision", "p@10", "ap11", "iprec"))
        theirs = _trec_eval(scores, rel, {"map", "Rprec", "P_10", "iprec_at_recall", "11pt_avg"})
        for i, t in enumerate(theirs):
            assert ours["ap"][i] == pytest.approx(t["map"], abs=1e-6)
            assert ours["r_precision"][i] == pytest.approx(t["Rprec"], abs=1e-6)
            assert ours["p@10"][i] == pytest.approx(t["P_10"], abs=1e-6)
            assert ours["ap11"][i] == pytest.approx(t["11pt_avg"], abs=1e-6)
            np.testing.assert_allclose(ours["iprec"][i], [t[k] for k in LEVEL_KEYS], atol=1e-6)
            assert ours["ap11"][i] == pytest.approx(np.mean([t[k] for k in LEVEL_KEYS]), abs=1e-6)


def test_agrees_with_trec_eval_when_documents_are_excluded():
    pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(42)
    scores = rng.normal(size=(6, 50))
    rel = rng.random((6, 50)) < 0.25
    exclude = rng.random((6, 50)) < 0.3
    rel[:, 0] = True
    exclude[:, 0] = False
    ours = ev.per_query_measures(scores, rel, exclude=exclude, measures=("ap", "ap11", "r_precision"))
    for i in range(6):
        kept = ~exclude[i]
        (t,) = _trec_eval(scores[i:i + 1, kept], rel[i:i + 1, kept], {"map", "11pt_avg", "Rprec"})
        assert ours["ap"][i] == pytest.approx(t["map"], abs=1e-6)
        assert ours["ap11"][i] == pytest.approx(t["11pt_avg"], abs=1e-6)
        assert ours["r_precision"][i] == pytest.approx(t["Rprec"], abs=1e-6)


def test_agrees_with_ir_measures_aggregates():
    ir_measures = pytest.importorskip("ir_measures")
    rng = np.random.default_rng(7)
    scores = rng.normal(size=(8, 60))
    rel = rng.random((8, 60)) < 0.2
    rel[:, 3] = True
    qrels = [ir_measures.Qrel(f"q{i}", f"d{j}", int(rel[i, j])) for i in range(8) for j in range(60)]
    run = [ir_measures.ScoredDoc(f"q{i}", f"d{j}", float(scores[i, j])) for i in range(8) for j in range(60)]
    agg = ir_measures.calc_aggregate([ir_measures.AP, ir_measures.Rprec, ir_measures.P @ 10], qrels, run)
    report = ev.retrieval_report(scores, rel, measures=("map", "r_precision", "p@10"))
    assert report["map"] == pytest.approx(agg[ir_measures.AP], abs=1e-6)
    assert report["r_precision"] == pytest.approx(agg[ir_measures.Rprec], abs=1e-6)
    assert report["p@10"] == pytest.approx(agg[ir_measures.P @ 10], abs=1e-6)


# --------------------------------------------------------------------------- cluster retrieval

def test_cluster_report_perfect_clusters():
    points = np.array([0.0, 1.0, 10.0, 11.0, 12.0])
    scores = -np.abs(points[:, None] - points[None, :])
    report = ev.cluster_retrieval_report(scores, [0, 0, 1, 1, 1])
    assert report["ap"] == report["r_precision"] == report["ap11"] == pytest.approx(1.0)
    assert report["p@10"] == pytest.approx((1 / 10 * 2 + 2 / 10 * 3) / 5)
    assert report["n_queries"] == 5 and report["n_skipped_queries"] == 0


def test_cluster_report_noise_and_singletons():
    points = np.array([0.0, 2.0, 1.0, 50.0])
    scores = -np.abs(points[:, None] - points[None, :])
    labels = np.array([0, 0, -1, 1])  # item 2 is noise between the two members of cluster 0
    report, per_query = ev.cluster_retrieval_report(scores, labels, measures=("ap",), return_per_query=True)
    # query 0 ranks 2 (noise), then 1 (relevant): AP 1/2, likewise query 1; item 3 is a singleton
    assert report == {"ap": pytest.approx(0.5), "n_queries": 2, "n_skipped_queries": 1}
    np.testing.assert_allclose(per_query["ap"], [0.5, 0.5, np.nan, np.nan])
    with_noise = ev.cluster_retrieval_report(scores, labels, measures=("ap",), noise_queries=True)
    assert with_noise["n_skipped_queries"] == 2 and with_noise["ap"] == pytest.approx(0.5)


def test_cluster_report_blockwise_equals_full_matrix():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    labels = rng.integers(-1, 4, size=40)
    sq = (X ** 2).sum(axis=1)
    full_scores = -(sq[:, None] + sq[None, :] - 2 * X @ X.T)
    calls = []

    def score_block(rows):
        calls.append(np.array(rows))
        return -(sq[rows][:, None] + sq[None, :] - 2 * X[rows] @ X.T)

    measures = ("ap", "ap11", "r_precision", "p@10", "bep")
    full, full_pq = ev.cluster_retrieval_report(full_scores, labels, measures=measures, return_per_query=True)
    blocked, blocked_pq = ev.cluster_retrieval_report(score_block, labels, measures=measures,
                                                      block_size=7, return_per_query=True)
    for key in measures:
        assert blocked[key] == pytest.approx(full[key], abs=1e-12)
        np.testing.assert_allclose(blocked_pq[key], full_pq[key], atol=1e-12)
    assert max(len(c) for c in calls) <= 7
    asked = np.concatenate(calls)
    np.testing.assert_array_equal(np.sort(asked), np.nonzero(labels != -1)[0])


def test_cluster_report_equals_generic_leave_one_out():
    rng = np.random.default_rng(8)
    scores = rng.normal(size=(30, 30))
    labels = rng.integers(0, 4, size=30)
    rel = ev.relevance_from_labels(labels, labels)
    generic = ev.retrieval_report(scores, rel, exclude_self=True)
    assert ev.cluster_retrieval_report(scores, labels) == pytest.approx(generic)


def test_relevance_from_labels_never_marks_noise_relevant():
    rel = ev.relevance_from_labels([0, -1, 1], [0, -1, 1, 0])
    np.testing.assert_array_equal(rel, [[1, 0, 0, 1], [0, 0, 0, 0], [0, 0, 1, 0]])
    assert ev.relevance_from_labels([-1], [-1], noise_label=None)[0, 0]


# --------------------------------------------------------------------------- retrieval errors

@pytest.mark.parametrize("scores, rel, match", [
    (np.array([[1.0, np.nan]]), np.array([[1, 0]]), "scores contains NaN"),
    (np.ones((2, 3)), np.ones((2, 4)), "shapes do not match"),
    (np.ones((2, 3)), np.ones((3, 3)), "shapes do not match"),
    (np.ones(3), np.ones(3), "2-D"),
    (np.ones((0, 3)), np.ones((0, 3)), "empty"),
    (np.ones((1, 3)), np.array([[0, 2, 1]]), "graded relevance"),
    (np.ones((1, 3)), np.array([[0, np.nan, 1]]), "relevant contains NaN"),
    (np.ones((1, 3)), np.array([["a", "b", "c"]]), "relevant must be boolean"),
])
def test_retrieval_input_errors(scores, rel, match):
    with pytest.raises(ValueError, match=match):
        ev.retrieval_report(scores, rel)


def test_retrieval_option_errors():
    with pytest.raises(ValueError, match="unknown retrieval measure 'ndcg'"):
        ev.retrieval_report(SCORES_1, REL_1, measures=("ndcg",))
    with pytest.raises(ValueError, match="at least 1"):
        ev.retrieval_report(SCORES_1, REL_1, measures=("p@0",))
    with pytest.raises(ValueError, match="measures is empty"):
        ev.retrieval_report(SCORES_1, REL_1, measures=())
    with pytest.raises(ValueError, match="curve"):
        ev.retrieval_report(SCORES_1, REL_1, measures=("iprec",))
    with pytest.raises(ValueError, match="block_size"):
        ev.retrieval_report(SCORES_1, REL_1, block_size=0)
    with pytest.raises(ValueError, match="square"):
        ev.retrieval_report(np.ones((2, 3)), np.ones((2, 3)), exclude_self=True)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        ev.precision_at_k(SCORES_1, REL_1, k=0)
    with pytest.raises(ValueError, match="none of the 1 queries"):
        ev.retrieval_report(SCORES_1, np.zeros_like(REL_1))
    with pytest.raises(ValueError, match="none of the 1 queries"):
        ev.precision_recall_curve(SCORES_1, np.zeros_like(REL_1))
    with pytest.raises(TypeError, match="sparse"):
        ev.retrieval_report(sp.csr_matrix(SCORES_1), REL_1)


def test_cluster_report_errors():
    scores = np.zeros((3, 3))
    with pytest.raises(ValueError, match=r"expected an \(4, 4\) matrix"):
        ev.cluster_retrieval_report(scores, [0, 0, 1, 1])
    with pytest.raises(ValueError, match="no queries"):
        ev.cluster_retrieval_report(scores, [-1, -1, -1])
    with pytest.raises(ValueError, match="at least 2"):
        ev.cluster_retrieval_report(np.zeros((1, 1)), [0])
    with pytest.raises(ValueError, match="labels must be 1-D"):
        ev.cluster_retrieval_report(scores, np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"shape \(len\(rows\), n_docs\)"):
        ev.cluster_retrieval_report(lambda rows: np.zeros(len(rows)), [0, 0, 1])
    with pytest.raises(ValueError, match=r"scores\(rows\) contains NaN"):
        ev.cluster_retrieval_report(lambda rows: np.full((len(rows), 3), np.nan), [0, 0, 1])
    with pytest.raises(ValueError, match="columns"):
        ev.cluster_retrieval_report(lambda rows: np.zeros((len(rows), 2)), [0, 0, 1])


# --------------------------------------------------------------------------- triplets

def test_triplet_accuracy_counts_ties_as_errors():
    d_ij, d_ik = [1.0, 2.0, 3.0], [2.0, 2.0, 1.0]
    assert ev.triplet_accuracy(d_ij, d_ik) == pytest.approx(1 / 3)
    assert ev.triplet_error_rate(d_ij, d_ik) == pytest.approx(2 / 3)


def test_evaluate_triplets_with_embedding_distance_and_indices():
    X = np.array([[0.0], [1.0], [3.0], [10.0]])
    triplets = np.array([[0, 1, 2], [0, 2, 1], [3, 2, 1], [1, 0, 2]])
    # squared distances: satisfied 1st (1 < 9), 3rd (49 < 81), 4th (1 < 4); violated 2nd (9 > 1)
    expected = {"accuracy": 0.75, "error_rate": 0.25}
    assert ev.evaluate_triplets(triplets, X) == pytest.approx(expected)
    assert ev.evaluate_triplets(triplets, sp.csr_matrix(X)) == pytest.approx(expected)
    # a tie (points 1 and 2 equidistant from 0) is an error
    assert ev.evaluate_triplets([[0, 1, 2]], np.array([[0.0], [1.0], [-1.0]]))["accuracy"] == 0.0
    # a distance that reverses the order makes the satisfied ones violated
    neg = ev.evaluate_triplets(triplets, X, distance=lambda A, B: -np.abs(A - B).ravel())
    assert neg["accuracy"] == pytest.approx(0.25)
    # without X the distance receives indices
    by_index = ev.evaluate_triplets(triplets, distance=lambda a, b: np.abs(X[a, 0] - X[b, 0]))
    assert by_index["accuracy"] == pytest.approx(0.75)
    d_ij, d_ik = ev.triplet_distances(triplets, X, block_size=1)
    np.testing.assert_allclose(d_ij, [1, 9, 49, 1])
    np.testing.assert_allclose(d_ik, [9, 1, 81, 4])


def test_triplet_errors():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="same length"):
        ev.triplet_accuracy([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="d_ij contains NaN"):
        ev.triplet_error_rate([np.nan], [1.0])
    with pytest.raises(ValueError, match="empty"):
        ev.triplet_accuracy([], [])
    with pytest.raises(ValueError, match="out of range"):
        ev.evaluate_triplets([[0, 1, 3]], X)
    with pytest.raises(ValueError, match=r"shape \(n, 3\)"):
        ev.evaluate_triplets([[0, 1]], X)
    with pytest.raises(ValueError, match="negative"):
        ev.evaluate_triplets([[0, -1, 2]], distance=lambda a, b: np.zeros(len(a)))
    with pytest.raises(ValueError, match="give X"):
        ev.evaluate_triplets([[0, 1, 2]])
    with pytest.raises(ValueError, match="one distance per row pair"):
        ev.evaluate_triplets([[0, 1, 2]], X, distance=lambda A, B: np.zeros(5))
    with pytest.raises(ValueError, match="X contains NaN"):
        ev.evaluate_triplets([[0, 1, 2]], np.full((3, 2), np.nan))


# --------------------------------------------------------------------------- clustering

def _brute_force_precision(y_true, y_pred, balanced):
    same_agree = same_total = diff_agree = diff_total = 0
    for i, j in itertools.combinations(range(len(y_true)), 2):
        same_true = y_true[i] == y_true[j]
        agree = same_true == (y_pred[i] == y_pred[j])
        if same_true:
            same_total += 1
            same_agree += agree
        else:
            diff_total += 1
            diff_agree += agree
    if balanced:
        return 0.5 * (same_agree / same_total + diff_agree / diff_total)
    return (same_agree + diff_agree) / (same_total + diff_total)


def test_clustering_precision_hand_computed():
    # pairs: (0,1) split wrongly, (2,3) kept; (0,2),(0,3) kept apart; (1,2),(1,3) merged wrongly
    assert ev.pairwise_clustering_precision([0, 0, 1, 1], [0, 1, 1, 1]) == pytest.approx(3 / 6)
    # predicted one big cluster: same pairs 2/2 agree, different pairs 0/4
    assert ev.pairwise_clustering_precision([0, 0, 1, 1], [5, 5, 5, 5]) == pytest.approx(2 / 6)
    assert ev.pairwise_clustering_precision([0, 0, 1, 1], [5, 5, 5, 5], balanced=True) == pytest.approx(0.5)
    # label names do not matter
    assert ev.pairwise_clustering_precision(["a", "a", "b"], [7, 7, 3]) == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(6))
def test_clustering_precision_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 40))
    y_true = rng.integers(0, rng.integers(2, 5), size=n)
    y_true[:2] = [0, 1]
    y_true[2] = 0  # at least one same-cluster and one different-cluster pair
    y_pred = rng.integers(0, rng.integers(1, 6), size=n)
    for balanced in (False, True):
        assert ev.pairwise_clustering_precision(y_true, y_pred, balanced=balanced) == pytest.approx(
            _brute_force_precision(y_true, y_pred, balanced), abs=1e-12)


def test_clustering_precision_errors():
    with pytest.raises(ValueError, match="same length"):
        ev.pairwise_clustering_precision([0, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="at least 2"):
        ev.pairwise_clustering_precision([0], [0])
    with pytest.raises(ValueError, match="empty"):
        ev.pairwise_clustering_precision([], [])
    with pytest.raises(ValueError, match="singleton"):
        ev.pairwise_clustering_precision([0, 1, 2], [0, 0, 0], balanced=True)
    with pytest.raises(ValueError, match="one true cluster"):
        ev.pairwise_clustering_precision([1, 1, 1], [0, 1, 0], balanced=True)
    with pytest.raises(ValueError, match="NaN"):
        ev.pairwise_clustering_precision([0.0, np.nan], [0, 1])


def test_kmeans_clustering_precision():
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [100.0, 0.0]])
    labels = np.repeat([0, 1], 15)
    X = centres[labels] + rng.normal(scale=0.1, size=(30, 2))
    mean, std = ev.kmeans_clustering_precision(X, labels, n_runs=5, random_state=0)
    assert mean == pytest.approx(1.0) and std == pytest.approx(0.0)
    # labels unrelated to the geometry give a poor precision
    shuffled = rng.permutation(labels)
    mean_bad, _ = ev.kmeans_clustering_precision(X, shuffled, n_runs=5, random_state=0)
    assert mean_bad < 0.7
    # same seed, same result; sparse input accepted
    assert ev.kmeans_clustering_precision(X, shuffled, n_runs=3, random_state=1) == \
        ev.kmeans_clustering_precision(X, shuffled, n_runs=3, random_state=1)
    assert ev.kmeans_clustering_precision(sp.csr_matrix(X), labels, n_runs=2, random_state=0)[0] == \
        pytest.approx(1.0)


def test_kmeans_clustering_precision_errors():
    X = np.zeros((4, 2))
    with pytest.raises(ValueError, match="4 rows but labels has 3"):
        ev.kmeans_clustering_precision(X, [0, 1, 1])
    with pytest.raises(ValueError, match="single class"):
        ev.kmeans_clustering_precision(X, [0, 0, 0, 0])
    with pytest.raises(ValueError, match="n_runs"):
        ev.kmeans_clustering_precision(X, [0, 0, 1, 1], n_runs=0)
    with pytest.raises(ValueError, match="X contains NaN"):
        ev.kmeans_clustering_precision(np.full((4, 2), np.nan), [0, 0, 1, 1])


# --------------------------------------------------------------------------- pair classification

def test_best_threshold_hand_computed():
    # sorted: 0.8 (+), 0.4 (-), 0.35 (+), 0.1 (-); cutting below 0.8 is right 3 times of 4
    threshold, accuracy = ev.best_threshold([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    assert accuracy == pytest.approx(0.75)
    assert threshold == pytest.approx(0.6)


def test_best_threshold_edge_cases():
    assert ev.best_threshold([0.5, 0.5], [1, 0])[1] == pytest.approx(0.5)  # ties cannot be split
    assert ev.best_threshold([1.0, 2.0], [1, 1]) == (1.0, 1.0)  # all positive: the minimum
    threshold, accuracy = ev.best_threshold([1.0, 2.0], [0, 0])
    assert accuracy == 1.0 and threshold == np.inf


@pytest.mark.parametrize("seed", range(5))
def test_best_threshold_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    scores = np.round(rng.normal(size=60), 1)  # ties on purpose
    y = (rng.random(60) < 0.4).astype(int)
    brute = max(np.mean((scores >= t) == (y == 1)) for t in np.append(scores, np.inf))
    threshold, accuracy = ev.best_threshold(scores, y)
    assert accuracy == pytest.approx(brute)
    assert np.mean((scores >= threshold) == (y == 1)) == pytest.approx(accuracy)


def test_log_loss():
    assert ev.log_loss([1, 0], [0.8, 0.3]) == pytest.approx(-(np.log(0.8) + np.log(0.7)) / 2)
    # hard, wrong 0/1 predictions are clipped to a finite loss
    assert ev.log_loss([0, 1], [1.0, 0.0], eps=1e-15) == pytest.approx(-np.log(1e-15), rel=1e-6)
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(0)
    y, p = rng.integers(0, 2, 50), rng.random(50)
    assert ev.log_loss(y, p) == pytest.approx(sklearn_metrics.log_loss(y, p))


def test_pair_classification_report():
    scores, y = [0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]
    best = ev.pair_classification_report(scores, y, probabilities=[0.2, 0.4, 0.6, 0.9])
    assert best["accuracy"] == pytest.approx(0.75) and best["threshold"] == pytest.approx(0.6)
    assert best["error_rate"] == pytest.approx(0.25)
    assert best["log_loss"] == pytest.approx(-np.mean(np.log([0.8, 0.6, 0.6, 0.9])))
    fixed = ev.pair_classification_report(scores, y, threshold=0.3)
    assert fixed == {"accuracy": pytest.approx(0.75), "error_rate": pytest.approx(0.25), "threshold": 0.3}
    assert "log_loss" not in fixed


def test_pair_classification_errors():
    with pytest.raises(ValueError, match="same length"):
        ev.pair_classification_report([0.1, 0.2], [1])
    with pytest.raises(ValueError, match="scores contains NaN"):
        ev.best_threshold([np.nan, 0.2], [1, 0])
    with pytest.raises(ValueError, match="y_true must be boolean"):
        ev.best_threshold([0.1, 0.2], [1, 2])
    with pytest.raises(ValueError, match=r"lie in \[0, 1\]"):
        ev.log_loss([1, 0], [1.5, 0.2])
    with pytest.raises(ValueError, match="threshold must be a number"):
        ev.pair_classification_report([0.1, 0.2], [1, 0], threshold=np.nan)
    with pytest.raises(ValueError, match="empty"):
        ev.best_threshold([], [])


# --------------------------------------------------------------------------- correlation

def test_correlations():
    rng = np.random.default_rng(0)
    x = rng.normal(size=30)
    y = x + rng.normal(scale=0.5, size=30)
    assert ev.pearson(x, y) == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert ev.spearman(x, np.exp(x)) == pytest.approx(1.0)
    assert ev.spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)  # 1 - 6*2/(4*15)
    assert ev.pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)


@pytest.mark.parametrize("func", [ev.pearson, ev.spearman])
def test_correlation_errors(func):
    with pytest.raises(ValueError, match="same length"):
        func([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="x is constant"):
        func([1, 1, 1], [1, 2, 3])
    with pytest.raises(ValueError, match="y is constant"):
        func([1, 2, 3], [2, 2, 2])
    with pytest.raises(ValueError, match="at least 2"):
        func([1], [1])
    with pytest.raises(ValueError, match="y contains NaN"):
        func([1, 2, 3], [1, np.nan, 3])
    with pytest.raises(ValueError, match="1-D"):
        func(np.ones((2, 3)), np.ones((2, 3)))


def test_counted_ranks_equal_the_sorted_ones(monkeypatch):
    # few relevant documents a query: ranks are counted, not sorted; ties (integer scores),
    # excluded documents and NaN among the others must give the stable sort's ranks
    import learnsim.evaluation._evaluation as ev

    rng = np.random.default_rng(4)
    scores = rng.integers(0, 6, size=(40, 300)).astype(float)
    scores[3, 7] = np.nan
    relevant = np.zeros(scores.shape, dtype=bool)
    for row in range(40):
        relevant[row, rng.choice(300, size=row % 5, replace=False)] = True
    relevant[3, 7] = False
    exclude = rng.random(scores.shape) < 0.05
    counted = ev._relevant_ranks(scores, relevant, exclude)
    monkeypatch.setattr(ev, "_COUNT_MAX_RELEVANT", 0)       # the sorting path
    sorted_ = ev._relevant_ranks(scores, relevant, exclude)
    for a, b in zip(counted, sorted_):
        np.testing.assert_array_equal(a, b)
    monkeypatch.setattr(ev, "_COUNT_MAX_RELEVANT", 4)
    kept = relevant & ~exclude
    assert ev._counted_ranks(np.where(exclude, -np.inf, scores), kept, np.count_nonzero(kept, axis=1)) is not None

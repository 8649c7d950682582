"""Graded pairs on the command line (issue 32, part 4): ``fit --method film --pairs`` with a score
column trains the pair regression; ``evaluate --pairs`` reports Pearson and Spearman beside the
input cosine's; ``match`` predicts the score. And the labelled report's baseline (part 5):
``evaluate --pairs`` prints the input cosine's accuracy and F1 at the threshold saved at fit time."""
from __future__ import annotations

import json

import numpy as np
import pytest

from learnsim.datasets import make_clustered_corpus
from learnsim.persistence import load
from conftest import run_cli

FILM_FAST = ["--method", "film", "--dimensions", "4", "--max-iter", "20"]


def _graded_rows(n_pairs, seed):
    corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=12, random_state=seed)
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n_pairs):
        i = int(rng.integers(len(corpus.data)))
        same = np.flatnonzero(corpus.target == corpus.target[i])
        j = int(rng.choice(same if k % 2 else np.arange(len(corpus.data))))
        if i == j:
            continue
        score = (4.0 if corpus.target[i] == corpus.target[j] else 1.0) + float(rng.uniform(-0.8, 0.8))
        rows.append((round(score, 2), corpus.data[i], corpus.data[j]))
    return rows


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("graded")
    train, test = folder / "train.tsv", folder / "test.tsv"
    # a header naming a score column: graded
    train.write_text("score\ttext_a\ttext_b\n" + "".join(f"{s}\t{a}\t{b}\n" for s, a, b in _graded_rows(160, 3)),
                     encoding="utf-8")
    test.write_text("".join(f"{s}\t{a}\t{b}\n" for s, a, b in _graded_rows(60, 4)), encoding="utf-8")
    model = folder / "graded.npz"
    code, out, err = run_cli(["fit", "--pairs", train, "--model", model, "--json"] + FILM_FAST)
    assert code == 0, err
    return {"folder": folder, "train": train, "test": test, "model": model, "report": json.loads(out)}


def test_fit_on_graded_pairs_saves_the_pair_regression_and_its_check(graded):
    from learnsim.matching import MatchRule, PairScoreRegressor

    parts = load(graded["model"])
    assert isinstance(parts["matcher"], PairScoreRegressor)
    rule = parts["match_rule"]
    assert isinstance(rule, MatchRule) and rule.graded and rule.matcher in ("cosine", "regression", "regression+film")
    assert set(rule.pearsons) >= {"cosine", "regression"} and rule.baseline_gain is not None
    report = graded["report"]
    assert report["graded"] is True and report["matcher"] == rule.matcher
    assert report["match_baseline_gain"]["measure"].startswith("Pearson")
    # the kept rule is the regression only when the interval of its gain lies above 0
    gain = report["match_baseline_gain"]
    assert (rule.matcher != "cosine") == (gain["status"] == "learned" and gain["ci_low"] > 0)
    assert 0.0 <= report["search_input_weight"] <= 1.0


def test_columns_with_score_say_graded_explicitly(graded, tmp_path):
    # label column position 0 holding numbers other than 0/1 is graded too; score= says it outright
    rows = graded["train"].read_text(encoding="utf-8").splitlines()[1:]
    plain = tmp_path / "plain.tsv"
    plain.write_text("".join(f"x{k}\t{r}\n" for k, r in enumerate(rows)), encoding="utf-8")
    code, out, err = run_cli(["fit", "--pairs", plain, "--columns", "score=1,text_a=2,text_b=3",
                              "--model", tmp_path / "m.npz", "--json"] + FILM_FAST)
    assert code == 0, err
    assert json.loads(out)["graded"] is True


def test_evaluate_graded_pairs_reports_pearson_and_spearman_beside_the_cosine(graded):
    code, out, err = run_cli(["evaluate", "--model", graded["model"], "--pairs", graded["test"], "--json"])
    assert code == 0, err
    report = json.loads(out)
    assert report["graded"] is True and report["higher_is_better"] is True
    for method in ("learned", "cosine"):
        for measure in ("pearson", "spearman"):
            assert -1.0 <= report["methods"][method][measure] <= 1.0
    ratio = report["methods"]["learned"]["pearson"] / report["methods"]["cosine"]["pearson"]
    assert report["ratio_learned_to_cosine"]["pearson"] == pytest.approx(ratio, rel=1e-9)
    code, out, err = run_cli(["evaluate", "--model", graded["model"], "--pairs", graded["test"]])
    assert code == 0, err
    assert "Pearson" in out and "Spearman" in out and "learned/cosine" in out


def _lexical_pearson(rows):
    # the tf.idf cosine (raw tf x log N/df) of each pair over the pairs' own texts, as
    # learnsim.baseline.LexicalBaselines counts terms: the baseline a user has on new pairs
    from learnsim.baseline import LexicalBaselines
    from learnsim.evaluation import pearson
    from learnsim.text import tfidf_cosine_weights

    texts = sorted({t for _, a, b in rows for t in (a, b)})
    where = {t: i for i, t in enumerate(texts)}
    W = tfidf_cosine_weights(LexicalBaselines(texts).counts)
    idx = np.array([[where[a], where[b]] for _, a, b in rows])
    cosine = np.asarray(W[idx[:, 0]].multiply(W[idx[:, 1]]).sum(axis=1)).ravel()
    return float(pearson(cosine, np.array([float(s) for s, _, _ in rows])))


def test_evaluate_graded_pairs_of_new_words_compares_with_their_own_tfidf_cosine(graded, tmp_path):
    # Pairs whose words the model never saw (a new genre): the model's own input cosine knows
    # none of them and correlates with nothing, while the tf.idf cosine over the pairs' own texts
    # still does. The report compared the learned score with the first alone (STS-B captions ->
    # news: 2.09x 'the cosine', 0.97x the tf.idf cosine), a gain the user's baseline does not show.
    rng = np.random.default_rng(5)
    topics = [[f"zq{t}w{k}" for k in range(8)] for t in range(6)]
    rows = []
    for k in range(60):
        t, u = int(rng.integers(6)), int(rng.integers(6))
        u = t if k % 2 else u
        a, b = (" ".join(rng.choice(topics[v], 5)) for v in (t, u))
        rows.append((round((4.0 if t == u else 1.0) + float(rng.uniform(-0.8, 0.8)), 2), a, b))
    shifted = tmp_path / "shifted.tsv"
    shifted.write_text("".join(f"{s}\t{a}\t{b}\n" for s, a, b in rows), encoding="utf-8")
    code, out, err = run_cli(["evaluate", "--model", graded["model"], "--pairs", shifted, "--json"])
    assert code == 0, err
    report = json.loads(out)
    methods = report["methods"]
    assert methods["tfidf"]["pearson"] == pytest.approx(_lexical_pearson(rows), abs=1e-9)
    assert methods["tfidf"]["pearson"] > methods["cosine"]["pearson"] + 0.3
    assert report["strongest_baseline"]["pearson"] == "tfidf"
    assert report["ratio_learned_to_strongest_baseline"]["pearson"] == pytest.approx(
        methods["learned"]["pearson"] / methods["tfidf"]["pearson"], rel=1e-9)
    code, out, err = run_cli(["evaluate", "--model", graded["model"], "--pairs", shifted])
    assert code == 0, err
    assert "tfidf" in out and "learned/strongest" in out


def test_match_predicts_a_score_per_pair_with_a_graded_model(graded):
    code, out, err = run_cli(["match", "--model", graded["model"], "--pairs", graded["test"], "--json"])
    assert code == 0, err
    result = json.loads(out)
    n_lines = len(graded["test"].read_text(encoding="utf-8").splitlines())
    assert result["graded"] is True and result["higher_is_better"] is True and result["n_pairs"] == n_lines
    predicted = np.array([p["score"] for p in result["pairs"]])
    gold = np.array([p["gold_score"] for p in result["pairs"]])
    assert np.all(np.isfinite(predicted)) and "probability" not in result["pairs"][0]
    # same-topic pairs (gold around 4) are predicted above different-topic ones (around 1) on average
    assert predicted[gold > 2.5].mean() > predicted[gold < 2.5].mean()


def test_a_graded_model_refuses_to_list_duplicates_and_labelled_pairs(graded, tmp_path):
    docs = tmp_path / "docs.tsv"
    docs.write_text("a\tone text here\nb\tanother text there\n", encoding="utf-8")
    code, _, err = run_cli(["match", "--model", graded["model"], "--corpus", docs])
    assert code == 2 and "graded" in err and len(err.strip().splitlines()) == 1
    labelled = tmp_path / "labelled.tsv"
    labelled.write_text("1\tone text here\tone text there\n0\tone text\tanother\n", encoding="utf-8")
    code, _, err = run_cli(["evaluate", "--model", graded["model"], "--pairs", labelled])
    assert code == 2 and "graded" in err


def test_mcd_and_matcher_refuse_graded_pairs(graded, tmp_path):
    code, _, err = run_cli(["fit", "--method", "mcd", "--pairs", graded["train"], "--model", tmp_path / "m.npz"])
    assert code == 2 and "graded" in err and "--method film" in err
    code, _, err = run_cli(["fit", "--pairs", graded["train"], "--model", tmp_path / "m.npz", "--matcher", "knn"]
                           + FILM_FAST)
    assert code == 2 and "--matcher" in err


# ---------------------------------------------------------------------------- labelled: the baseline
@pytest.fixture(scope="module")
def labelled(tmp_path_factory):
    folder = tmp_path_factory.mktemp("labelled")
    corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=10, random_state=5)
    rng = np.random.default_rng(1)
    rows = []
    for k in range(160):
        i, j = rng.choice(len(corpus.data), 2, replace=False)
        if k % 2:
            j = rng.choice(np.flatnonzero(corpus.target == corpus.target[i]))
            if j == i:
                continue
        rows.append((int(corpus.target[i] == corpus.target[j]), corpus.data[i], corpus.data[j]))
    pairs = folder / "pairs.tsv"
    pairs.write_text("".join(f"{a}\t{b}\t{c}\n" for a, b, c in rows), encoding="utf-8")
    model = folder / "film.npz"
    code, _, err = run_cli(["fit", "--pairs", pairs, "--model", model, "--matcher", "threshold",
                            "--baseline-holdout", "none"] + FILM_FAST)
    assert code == 0, err
    return {"folder": folder, "pairs": pairs, "model": model, "rows": rows}


def test_evaluate_labelled_pairs_scores_the_cosine_at_its_saved_threshold(labelled):
    from learnsim.matching import pair_similarity

    parts = load(labelled["model"])
    threshold = parts["match_rule"].cosine_threshold
    assert threshold is not None and -1.0 <= threshold <= 1.0
    code, out, err = run_cli(["evaluate", "--model", labelled["model"], "--pairs", labelled["pairs"], "--json"])
    assert code == 0, err
    report = json.loads(out)
    assert report["cosine_threshold"] == pytest.approx(threshold)
    assert report["higher_is_better"] is True and report["rule"].startswith("threshold on the mixed cosine")
    # the cosine's accuracy: its saved threshold applied to the pairs' input cosine
    pipeline = __import__("learnsim").load(labelled["model"])
    texts = sorted({t for _, a, b in labelled["rows"] for t in (a, b)})
    at = {t: k for k, t in enumerate(texts)}
    idx = np.array([(at[a], at[b]) for _, a, b in labelled["rows"]])
    cosine = pair_similarity(pipeline.vectorize(texts), idx)
    y = np.array([lab for lab, _, _ in labelled["rows"]], dtype=bool)
    assert report["cosine_accuracy"] == pytest.approx(np.mean((cosine >= threshold) == y), abs=1e-9)
    code, out, err = run_cli(["evaluate", "--model", labelled["model"], "--pairs", labelled["pairs"]])
    assert code == 0, err
    accuracy_line = next(line for line in out.splitlines() if line.startswith("accuracy"))
    assert "-" not in accuracy_line.split()[1:]
    assert "input cosine >= " in out


def test_an_old_model_without_the_cosine_threshold_says_it_is_unknown(labelled, tmp_path):
    import learnsim

    pipeline = learnsim.load(labelled["model"])
    pipeline.match_rule.cosine_threshold = None        # as a model file written before it was saved
    old = tmp_path / "old.npz"
    pipeline.save(old)
    code, out, err = run_cli(["evaluate", "--model", old, "--pairs", labelled["pairs"], "--json"])
    assert code == 0, err
    report = json.loads(out)
    assert report["cosine_threshold"] is None and report["cosine_accuracy"] is None
    code, out, err = run_cli(["evaluate", "--model", old, "--pairs", labelled["pairs"]])
    assert code == 0, err
    assert "threshold unknown" in out


def test_evaluate_input_reports_bm25_beside_the_cosine(clustered_train_tsv, tmp_path):
    model = tmp_path / "mcd.npz"
    code, _, err = run_cli(["fit", "--input", clustered_train_tsv, "--model", model, "--baseline-holdout", "none"])
    assert code == 0, err
    code, out, err = run_cli(["evaluate", "--model", model, "--input", clustered_train_tsv, "--json"])
    assert code == 0, err
    report = json.loads(out)
    # the model's own cosine, and BM25 and the tf.idf cosine as every search fit is checked against
    assert set(report["methods"]) == {"learned", "cosine", "bm25", "tfidf"} and report["higher_is_better"] is True
    for measure, value in report["methods"]["bm25"].items():
        assert 0.0 <= value <= 1.0
        if value > 0:
            assert report["ratio_learned_to_bm25"][measure] == pytest.approx(
                report["methods"]["learned"][measure] / value)
        strongest = report["strongest_baseline"][measure]
        assert strongest in ("bm25", "tfidf")
        assert report["methods"][strongest][measure] == max(report["methods"][b][measure] for b in ("bm25", "tfidf"))


def _read_graded(path):
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    return [(a, b) for _, a, b in rows], np.array([float(s) for s, _, _ in rows])


def test_match_evaluate_and_the_service_score_as_pipeline_match(graded, tmp_path):
    """Issue 32, part 6: the pairs of a call are the collection their lexical blocks are weighted
    by (words the fit never saw count), the same in Pipeline.match, ``learnsim match --pairs``,
    ``learnsim evaluate --pairs`` and the service's POST /v1/match (up to 100 pairs, one piece)."""
    import learnsim
    from learnsim.evaluation import pearson

    pipeline = learnsim.load(graded["model"])
    assert pipeline.matcher.lexical == "collection"
    pairs, gold = _read_graded(graded["test"])
    # words the fit never saw, in some pairs
    pairs = [(a + " okapi", b + " okapi") if k % 3 == 0 else (a, b) for k, (a, b) in enumerate(pairs)]
    unseen = tmp_path / "unseen.tsv"
    unseen.write_text("".join(f"{s}\t{a}\t{b}\n" for s, (a, b) in zip(gold, pairs)), encoding="utf-8")
    expected = np.array([r["score"] for r in pipeline.match(pairs)])
    code, out, err = run_cli(["match", "--model", graded["model"], "--pairs", unseen, "--json"])
    assert code == 0, err
    assert np.array_equal([p["score"] for p in json.loads(out)["pairs"]], expected)
    code, out, err = run_cli(["evaluate", "--model", graded["model"], "--pairs", unseen, "--json"])
    assert code == 0, err
    assert json.loads(out)["methods"]["learned"]["pearson"] == pytest.approx(pearson(expected, gold), abs=1e-12)

    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    import warnings

    from learnsim.index import Index
    from learnsim.service import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    texts = sorted({t for pair in pairs for t in pair})
    Index.build(tmp_path / "index", pipeline, texts).close()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        client = TestClient(create_app(tmp_path / "index"), raise_server_exceptions=False, base_url="http://127.0.0.1")
        answer = client.post("/v1/match", json={"pairs": [list(p) for p in pairs]})
    assert answer.status_code == 200, answer.text[:300]
    assert len(pairs) <= 100 and np.array_equal([d["score"] for d in answer.json()["decisions"]], expected)

"""An index re-ranks from the re-ranker's saved arrays (learnsim.index._rerank), without the
pipeline or scikit-learn: the same hits, probabilities and explanations as the pipeline's
re-ranker; damaged files refused; a re-ranker the arrays cannot express left to the pipeline."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
import unicodedata
import warnings

import numpy as np
import pytest

import learnsim.fitting
from learnsim.exceptions import IndexFormatError
from learnsim.index import Index
from learnsim.index._rerank import RerankPlan, rerank_plan_state, write_rerank_plan
from learnsim.matching import PairClassifierMatcher, Reranker

from index_edit import read_manifest, write_manifest
from index_models import negation_collection


@pytest.fixture(scope="module")
def reranked(tmp_path_factory):
    rows = negation_collection(n_groups=120)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = learnsim.fitting.fit(pairs=rows, method="film", n_components=8, max_iter=30)
    assert result.pipeline.rerank is not None
    # a first stage the plan explains itself (FILM's input cosine; the fit's check chose BM25 on
    # these pairs, whose explanations take the pipeline): what this tests is the re-ranker's plan
    from learnsim.film import SearchRule

    parts = dict(result.pipeline.parts, search=SearchRule(input_weight=1.0))
    parts.pop("lexical", None)
    pipeline = learnsim.Pipeline.from_parts(parts)
    texts = list(dict.fromkeys(t for a, b, _ in rows for t in (a, b)))
    path = tmp_path_factory.mktemp("rerank") / "idx"
    Index.build(path, pipeline, texts).close()
    queries = [a for a, _, _ in rows[::2][:15]] + ["not", "", "w1 w2 unknownword", "W3  W4\tw5 ÄÖ 漢字"]
    return pipeline, texts, path, queries


def test_the_plan_gives_the_pipelines_hits_and_explanations(reranked):
    pipeline, _, path, queries = reranked
    assert (path / read_manifest(path)["plan_dir"] / "rerank.json").exists()
    with Index.open(path) as planned, Index.open(path) as loaded:
        assert isinstance(planned._rerank_plan(), RerankPlan)
        loaded._rerank_plan = lambda: None          # the pipeline's re-ranker
        for q in queries:
            a, b = planned.search(q, k=5, explain=True), loaded.search(q, k=5, explain=True)
            assert [h["id"] for h in a] == [h["id"] for h in b]
            np.testing.assert_allclose([h["score"] for h in a], [h["score"] for h in b], rtol=0, atol=1e-9)
            assert [h["first_stage_rank"] for h in a] == [h["first_stage_rank"] for h in b]
            for x, y in zip(a, b):
                ex, ey = x["explanation"]["rerank"], y["explanation"]["rerank"]
                assert [f["feature"] for f in ex["features"]] == [f["feature"] for f in ey["features"]]
                for key in ("decision", "probability", "rest"):
                    assert ex[key] == pytest.approx(ey[key], abs=1e-9)
                total = ex["intercept"] + sum(f["contribution"] for f in ex["features"]) + ex["rest"]
                assert total == pytest.approx(ex["decision"], abs=1e-9)
        assert planned._pipeline is None            # nothing loaded the pipeline


def test_a_search_of_k_at_or_above_the_candidates_is_reranked_too(reranked):
    """A search of k >= the re-ranker's n_candidates read its depth as k and took the branch of
    a model without one: the first stage's hits in its order, its scores labelled as the
    re-ranker's probabilities, no first_stage_rank (learnsim evaluate --index, k 1000 by
    default, scored the first stage). Every k re-ranks, as Pipeline.search does."""
    pipeline, texts, path, queries = reranked
    n = pipeline.rerank.n_candidates
    with Index.open(path) as index:
        for q in queries[:6]:
            for k in (n - 1, n, n + 7):
                hits = index.search(q, k=k)
                if not hits:
                    continue
                assert all("first_stage_rank" in h for h in hits), k
                probabilities = [h["score"] for h in hits]
                assert all(0.0 <= p <= 1.0 for p in probabilities)
                assert probabilities == sorted(probabilities, reverse=True), k
                # the re-ranked order's head is the same whatever k beyond the candidates
                assert [h["id"] for h in hits[:10]] == [h["id"] for h in index.search(q, k=n - 1)[:10]], k
        copy = index.match(queries[0], k=n + 7)
        assert all("first_stage_rank" in h for h in copy)


def test_a_reranked_search_imports_no_scikit_learn(reranked):
    _, _, path, queries = reranked
    code = ("import sys; from learnsim.index import Index; ix = Index.open(sys.argv[1]); "
            "hits = ix.search(sys.argv[2], k=3, explain=True); "
            "assert 'first_stage_rank' in hits[0] and 'rerank' in hits[0]['explanation']; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'sklearn'))")
    out = subprocess.run([sys.executable, "-c", code, str(path), queries[0]], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_a_damaged_plan_is_refused(reranked, tmp_path):
    import shutil

    _, _, path, queries = reranked
    for name in ("rerank.coef.npy", "rerank.json", "rerank.terms.json"):
        copy = tmp_path / name
        shutil.copytree(path, copy)
        target = copy / read_manifest(copy)["plan_dir"] / name
        target.write_bytes(target.read_bytes()[:-3] + b"xyz")
        with Index.open(copy) as index, pytest.raises(IndexFormatError, match=name.replace(".", r"\.")):
            index.search(queries[0], k=3)
    # the manifest's number of candidates and the plan's disagree
    copy = tmp_path / "candidates"
    shutil.copytree(path, copy)
    m = read_manifest(copy)
    write_manifest(copy, dict(m, rerank=m["rerank"] + 1))
    with Index.open(copy) as index, pytest.raises(IndexFormatError, match="candidates"):
        index.search(queries[0], k=3)


def test_bad_plan_contents_are_value_errors(reranked):
    pipeline, _, _, _ = reranked
    meta, arrays, terms = rerank_plan_state(pipeline.rerank)
    RerankPlan(meta, arrays, terms)
    for change, match in ((dict(features=["lowrank"]), "features"), (dict(char_features=40), "char_features"),
                          (dict(char_ngram_range=[3, 1]), "char_ngram_range"), (dict(slope=float("nan")), "slope"),
                          (dict(n_candidates=0), "n_candidates"), (dict(char_fold="yes"), "char_fold")):
        with pytest.raises(ValueError, match=match):
            RerankPlan(dict(meta, **change), arrays, terms)
    for name, value in (("coef", arrays["coef"][:-1]), ("feature_scale", -arrays["feature_scale"]),
                        ("feature_mean", np.full_like(arrays["feature_mean"], np.inf))):
        with pytest.raises(ValueError, match=name):
            RerankPlan(meta, dict(arrays, **{name: value}), terms)


def test_a_reranker_with_an_lsi_block_is_left_to_the_pipeline(tmp_path):
    rows = negation_collection(n_groups=20)
    texts = list(dict.fromkeys(t for a, b, _ in rows for t in (a, b)))
    where = {t: i for i, t in enumerate(texts)}
    idx = np.array([[where[a], where[b]] for a, b, _ in rows])
    y = np.array([label for _, _, label in rows])
    model = PairClassifierMatcher(features=("input_cosine", "lowrank"), n_components=4, C=1.0,
                                  random_state=0).fit(texts, idx, y)
    reranker = Reranker(model, n_candidates=5)
    assert rerank_plan_state(reranker) is None
    assert not write_rerank_plan(reranker, tmp_path, texts[:5])
    assert not any(p.name.startswith("rerank") for p in tmp_path.iterdir())
    assert json.dumps(reranker.explain(texts[0], texts[1]))       # the pipeline's path still explains


def test_an_exact_copy_found_by_match_is_scored_as_the_reranked_search_scores_it(reranked):
    """Index.match takes the live documents whose text is the query's beside the search's hits
    (tests/index/test_index_match.py); where the index re-ranks, such a copy's hit is what the
    search gives it: the re-ranker's probability, its first stage's score and rank."""
    from learnsim.index._match import exact_copy_hits

    _, texts, path, _ = reranked
    with Index.open(path) as index:
        compared = 0
        for q in texts[:40]:
            searched = [h for h in index.search(q, k=5) if h["text"] == q]
            if not searched:
                continue
            (copy,) = exact_copy_hits(index, q, 5, None, [])
            want = searched[0]
            assert set(copy) == set(want) and copy["id"] == want["id"]
            assert copy["score"] == pytest.approx(want["score"], abs=1e-9)
            assert copy["first_stage_score"] == pytest.approx(want["first_stage_score"], rel=1e-6)
            assert copy["first_stage_rank"] == want["first_stage_rank"]
            compared += 1
        assert compared >= 10


def _spellings(texts):
    """Each text with accented words and a ligature, then the same in NFD (an accent written
    apart, as macOS writes file names) and in full-width letters."""
    out = []
    for t in texts:
        text = t.upper() + " café São ﬁne Straße"
        full = "".join("\u3000" if c == " " else chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)
        out += [text, unicodedata.normalize("NFD", text), full]
    return out


def _assert_plan_gives_the_rerankers_probabilities(plan, reranker, texts):
    for i, query in enumerate(texts):
        others = texts[:i] + texts[i + 1:]
        np.testing.assert_allclose(plan.probabilities(query, others), reranker.probabilities(query, others),
                                   rtol=0, atol=1e-9)


def test_the_plan_reads_a_text_written_another_way_as_the_reranker_does(reranked, tmp_path):
    """The re-ranker's character n-grams are taken from the text in NFKC, lowercased: the plan
    says so (char_fold) and folds alike, so NFD, full-width letters and ligatures give the
    re-ranker's probabilities, and each spelling the same character vector."""
    pipeline, texts, _, _ = reranked
    reranker = pipeline.rerank
    meta, arrays, terms = rerank_plan_state(reranker)
    assert meta["char_fold"] is True and "char_cosine" in meta["features"]
    plan = RerankPlan(meta, arrays, terms)
    assert plan.char_fold is True
    spelled = _spellings(texts[:4]) + texts[4:8]
    _assert_plan_gives_the_rerankers_probabilities(plan, reranker, spelled)
    for k in range(0, 12, 3):
        (cols, vals), *others = (plan._text(t, {})[2] for t in spelled[k:k + 3])
        assert cols.size > 0
        for other_cols, other_vals in others:
            np.testing.assert_array_equal(other_cols, cols)
            np.testing.assert_array_equal(other_vals, vals)
    assert write_rerank_plan(reranker, tmp_path, spelled)
    assert json.loads((tmp_path / "rerank.json").read_text(encoding="utf-8"))["char_fold"] is True


def test_a_plan_written_before_character_folding_reads_texts_lowercased_alone(reranked, tmp_path):
    """A plan without 'char_fold' (written before the fold) belongs to a model that lowercased
    alone: the plan reads so and gives that model's probabilities, which differ from a folding
    model's where a text is written another way."""
    pipeline, texts, _, _ = reranked
    old_model = copy.copy(pipeline.rerank.model)
    old_model.char_fold_ = False             # as a model saved before the fold loads
    old = Reranker(old_model, n_candidates=pipeline.rerank.n_candidates)
    meta, arrays, terms = rerank_plan_state(old)
    assert meta.pop("char_fold") is False
    plan = RerankPlan(meta, arrays, terms)
    assert plan.char_fold is False
    spelled = _spellings(texts[:4]) + texts[4:8]
    _assert_plan_gives_the_rerankers_probabilities(plan, old, spelled)
    nfd = spelled[1:3]
    assert not np.allclose(old.probabilities(spelled[0], nfd), pipeline.rerank.probabilities(spelled[0], nfd),
                           rtol=0, atol=1e-6)
    assert write_rerank_plan(old, tmp_path, spelled)
    assert json.loads((tmp_path / "rerank.json").read_text(encoding="utf-8"))["char_fold"] is False


def test_the_plan_case_folds_as_the_reranker_and_one_written_before_lowercases(reranked):
    """The re-ranker case-folds its character n-grams ("Straße" and "STRASSE" one vector): the
    plan says so (char_casefold) and reads alike; a plan without it (written before) belongs to
    a model that lowercased, and reads so."""
    pipeline, texts, _, _ = reranked
    reranker = pipeline.rerank
    meta, arrays, terms = rerank_plan_state(reranker)
    assert meta["char_casefold"] is True
    plan = RerankPlan(meta, arrays, terms)
    pair = ["die Straße ist lang", "DIE STRASSE IST LANG"]
    (a_cols, a_vals), (b_cols, b_vals) = (plan._text(t, {})[2] for t in pair)
    np.testing.assert_array_equal(a_cols, b_cols)
    np.testing.assert_array_equal(a_vals, b_vals)
    _assert_plan_gives_the_rerankers_probabilities(plan, reranker, pair + texts[:4])
    old_model = copy.copy(reranker.model)
    old_model.char_casefold_ = False             # as a model saved before loads
    old = Reranker(old_model, n_candidates=reranker.n_candidates)
    meta, arrays, terms = rerank_plan_state(old)
    assert meta.pop("char_casefold") is False
    plan = RerankPlan(meta, arrays, terms)
    assert plan.char_casefold is False
    assert not np.array_equal(*(plan._text(t, {})[2][0] for t in pair))
    _assert_plan_gives_the_rerankers_probabilities(plan, old, pair + texts[:4])
    with pytest.raises(ValueError, match="char_casefold"):
        RerankPlan(dict(meta, char_casefold="yes"), arrays, terms)


def test_evaluate_of_a_reranked_index_scores_the_reranked_run_at_every_k(reranked, tmp_path):
    """learnsim evaluate --index with its default k (1000) scored the first stage (Index.search
    re-ranked only below the re-ranker's candidates) while saying 're-ranked by the learned pair
    model': the learned run now scores as re-ranked at every k, and says how deep."""
    from conftest import run_cli

    _, texts, path, _ = reranked
    rows = negation_collection(n_groups=120)
    at = {t: i for i, t in enumerate(texts)}
    queries, qrels = tmp_path / "q.tsv", tmp_path / "qrels.txt"
    pairs = [(n, a, b) for n, (a, b, y) in enumerate(rows[:80]) if y == 1]
    queries.write_text("".join(f"q{n}\t{a}\n" for n, a, _ in pairs), encoding="utf-8")
    qrels.write_text("".join(f"q{n} 0 {at[b] + 1} 1\n" for n, _, b in pairs), encoding="utf-8")
    learned = {}
    for k in (10, 1000):
        code, out, err = run_cli(["evaluate", "--queries", queries, "--qrels", qrels, "--index", path, "-k", k, "--json"])
        assert code == 0, err
        report = json.loads(out)
        learned[k] = report["methods"]["learned"]["map"]
        assert f"the top {min(max(k, 50), len(texts))} by" in report["scoring"], report["scoring"]
    assert learned[1000] == pytest.approx(learned[10], abs=1e-9)

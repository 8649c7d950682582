"""``learnsim fit --method relative`` from triplets or clicks (paper 004), and LinkLearn's stemming."""
from __future__ import annotations

import json
import sys
from collections import Counter

import numpy as np
import pytest

from learnsim.datasets import make_clustered_corpus
from learnsim.persistence import load
from conftest import run_cli


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("relative")
    corpus = make_clustered_corpus(n_clusters=5, docs_per_cluster=12, random_state=7)
    labels = np.asarray(corpus.target)
    docs = folder / "docs.tsv"
    docs.write_text("id\ttext\n" + "".join(f"d{i}\t{t}\n" for i, t in enumerate(corpus.data)), encoding="utf-8")
    rng = np.random.default_rng(0)
    rows, clicks = [], []
    for _ in range(600):
        a = int(rng.integers(len(labels)))
        same = rng.choice(np.flatnonzero((labels == labels[a]) & (np.arange(len(labels)) != a)))
        other = rng.choice(np.flatnonzero(labels != labels[a]))
        rows.append(f"d{a}\td{same}\td{other}\n")
        query = " ".join(w for w, _ in Counter(corpus.data[a].split()).most_common(8))   # its main words
        clicks.append(f"{query}\td{same}\td{other}\n")
    triplets = folder / "triplets.tsv"
    triplets.write_text("anchor\tcloser\tfarther\n" + "".join(rows[:400]), encoding="utf-8")
    click_file = folder / "clicks.tsv"
    click_file.write_text("".join(clicks), encoding="utf-8")
    return {"folder": folder, "docs": docs, "triplets": triplets, "clicks": click_file, "labels": labels,
            "texts": corpus.data}


def test_fit_relative_from_triplets_chooses_C_on_held_out_anchors(files, tmp_path):
    from learnsim.relative import RelativeComparisonMetric

    model = tmp_path / "rel.npz"
    code, out, err = run_cli(["fit", "--method", "relative", "--input", files["docs"], "--triplets",
                              files["triplets"], "--model", model, "--json"])
    assert code == 0, err
    summary = json.loads(out)
    assert summary["supervision"] == "triplets" and summary["triplets"] == 400
    assert 0 < summary["validation_triplets"] < 400
    assert summary["C"] in (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 1.0)
    assert summary["validation_accuracy"] > 0.8
    parts = load(model)
    assert isinstance(parts["metric"], RelativeComparisonMetric) and parts["metric"].C == summary["C"]
    # the model searches by its learned distance and evaluates on clusters
    code, out, err = run_cli(["search", "--model", model, "--corpus", files["docs"], "--query", files["texts"][0],
                              "-k", "3", "--json"])
    assert code == 0, err
    hits = json.loads(out)[0]
    assert hits["scoring"] == "learned distance" and hits["hits"][0]["index"] == 0
    code, out, _ = run_cli(["fit", "--method", "relative", "--input", files["docs"], "--triplets", files["triplets"],
                            "--model", model])
    assert code == 0 and "Relative comparisons: C =" in out


def test_fit_relative_from_clicks(files, tmp_path):
    model = tmp_path / "clicks.npz"
    # unchecked as search: the subject is the relative model fitted from clicks (the search check
    # is tests/relative/test_relative_search_check.py's)
    code, out, err = run_cli(["fit", "--method", "relative", "--input", files["docs"], "--clicks", files["clicks"],
                              "--model", model, "--json", "--baseline-holdout", "none"])
    assert code == 0, err
    summary = json.loads(out)
    assert summary["supervision"] == "clicks" and summary["triplets"] == 600
    assert summary["queries"] == 60          # one distinct query text per document: one anchor each
    assert 0.0 <= summary["validation_accuracy"] <= 1.0 and 0.0 <= summary["training_accuracy"] <= 1.0
    model_parts = load(model)
    metric = model_parts["metric"]
    assert metric.n_features_in_ == summary["features"]
    # the saved model is what the report says: learned weights, or W = 1 when they lost on the
    # clicks of held-out queries (as here: 60 queries are too few to learn weights that transfer
    # to new queries, cross-fitted gain about -0.02)
    report = summary["baseline_gain"]
    assert (summary["model"] == "W = 1") == (report["status"] == "baseline") == metric.baseline_gain_.fell_back
    if report["status"] == "baseline":
        np.testing.assert_array_equal(metric.weights_, 1.0)
        # a fall-back: no gain, a gain its interval cannot tell from 0, or W = 1 chosen outright
        assert report["ci_low"] <= 0 or report["detail"]["chosen"] == "W = 1"


@pytest.mark.parametrize("content, extra, fragment", [
    ("d0\td1\tnowhere\n", [], "unknown document 'nowhere'"),
    ("d0\td1\n", [], "expected anchor<TAB>closer<TAB>farther"),
    ("d0\td0\td1\n", [], "the three items must differ"),
    ("d0\td1\td2\n", ["--clicks", "{t}"], "not both"),
    ("d0\td1\td2\n", ["--n-basis", "3"], "--n-basis applies to --method mcd only"),
])
def test_fit_relative_bad_input_exits_2(files, tmp_path, content, extra, fragment):
    path = tmp_path / "t.tsv"
    path.write_text(content, encoding="utf-8")
    args = ["fit", "--method", "relative", "--input", files["docs"], "--triplets", path,
            "--model", tmp_path / "m.npz"] + [a.format(t=path) for a in extra]
    code, out, err = run_cli(args)
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "m.npz").exists()


def test_fit_relative_needs_supervision(files, tmp_path):
    code, _, err = run_cli(["fit", "--method", "relative", "--input", files["docs"], "--model", tmp_path / "m.npz"])
    assert code == 2 and "--triplets FILE" in err and "--clicks FILE" in err


# --------------------------------------------------------------------------- LinkLearn stemming

@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Pages of 6 topics linked within their topic; topic 0 speaks of eruptions in several forms."""
    folder = tmp_path_factory.mktemp("stem")
    corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=12, random_state=3)
    forms = ["erupted", "erupting", "eruption", "eruptions", "erupt"]
    texts = [t + (f" {forms[i % 5]} {forms[(i + 2) % 5]}" if corpus.target[i] == 0 else "")
             for i, t in enumerate(corpus.data)]
    rng = np.random.default_rng(0)
    edges = set()
    for i in range(len(texts)):
        for j in rng.choice(np.flatnonzero(corpus.target == corpus.target[i]), 3):
            if i != j:
                edges.add((i, int(j)))
    docs = folder / "pages.tsv"
    docs.write_text("".join(f"p{i}\t{t}\n" for i, t in enumerate(texts)), encoding="utf-8")
    links = folder / "links.tsv"
    links.write_text("".join(f"p{a}\tp{b}\n" for a, b in sorted(edges)), encoding="utf-8")
    return docs, links


def test_linklearn_stems_by_default_as_the_help_says(pages, tmp_path):
    docs, links = pages
    model = tmp_path / "ll.npz"
    code, _, err = run_cli(["fit", "--method", "linklearn", "--input", docs, "--links", links, "--model", model,
                            "--max-iter", "200"])
    assert code == 0, err
    vectorizer = load(model)["vectorizer"]
    assert vectorizer.stem == "porter"
    terms = set(map(str, vectorizer.get_feature_names_out()))
    assert "erupt" in terms and not {"erupted", "erupting", "eruption", "eruptions"} & terms
    code, out, _ = run_cli(["fit", "--help"])
    assert "Porter stemming by default" in " ".join(out.split())


def test_linklearn_without_pystemmer_says_so_and_fits_unstemmed(pages, tmp_path, monkeypatch):
    docs, links = pages
    monkeypatch.setitem(sys.modules, "Stemmer", None)      # import Stemmer fails
    model = tmp_path / "ll.npz"
    code, _, err = run_cli(["fit", "--method", "linklearn", "--input", docs, "--links", links, "--model", model,
                            "--max-iter", "200"])
    assert code == 0, err
    assert "PyStemmer is not installed: fitting without Porter stemming" in err
    assert load(model)["vectorizer"].stem is None


def test_linklearn_no_stem(pages, tmp_path):
    docs, links = pages
    model = tmp_path / "ll.npz"
    # unchecked, so that the learned weighting (not a baseline the search check may end at) is saved
    code, _, err = run_cli(["fit", "--method", "linklearn", "--input", docs, "--links", links, "--model", model,
                            "--max-iter", "200", "--no-stem", "--baseline-holdout", "none"])
    assert code == 0, err
    assert load(model)["vectorizer"].stem is None


# --------------------------------------------------------------------------- against W = 1 (issue 13)

def test_fit_relative_reports_the_gain_over_W1(files, tmp_path):
    model = tmp_path / "rel.npz"
    code, out, err = run_cli(["fit", "--method", "relative", "--input", files["docs"], "--triplets",
                              files["triplets"], "--model", model, "--json"])
    assert code == 0, err
    summary = json.loads(out)
    report = summary["baseline_gain"]
    # topic words among many shared background words: the learned weights beat W = 1
    assert report["status"] == "learned" and summary["model"] == "learned", report
    assert report["gain"] > 0 and report["ci_low"] <= report["gain"] <= report["ci_high"]
    # the units are the held-out anchors, each scored over all its triplets
    assert report["n_units"] == summary["validation_anchors"] < summary["validation_triplets"]
    assert report["detail"]["held_out_triplets"] == summary["validation_triplets"] and report["detail"]["cross_fitted"]
    assert report["detail"]["C"] == summary["C"]
    assert summary["validation_accuracy_baseline"] == pytest.approx(report["baseline_score"])
    saved = load(model)["metric"].baseline_gain_
    assert saved.to_dict() == report
    code, out, _ = run_cli(["fit", "--method", "relative", "--input", files["docs"], "--triplets", files["triplets"],
                            "--model", model])
    assert code == 0 and "Against the baseline: triplet accuracy" in out and "kept the learned part" in out


def _euclid_triplets(files, path, m=300):
    """Triplets labelled by the binary Euclidean distance the CLI's default features give: W = 1
    is right on every one of them."""
    from learnsim.text import TextVectorizer

    texts = [line.split("\t", 1)[1] for line in files["docs"].read_text(encoding="utf-8").splitlines()[1:]]
    X = TextVectorizer("binary", dtype=np.float64).fit_transform(texts)
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
    rng = np.random.default_rng(4)
    rows = []
    while len(rows) < m:
        a, b, c = rng.choice(len(texts), 3, replace=False)
        d_b, d_c = ((X[a] - X[b]) ** 2).sum(), ((X[a] - X[c]) ** 2).sum()
        if d_b != d_c:
            b, c = (b, c) if d_b < d_c else (c, b)
            rows.append(f"d{a}\td{b}\td{c}\n")
    path.write_text("".join(rows), encoding="utf-8")
    return path


def test_fit_relative_falls_back_to_W1_and_says_so(files, tmp_path):
    triplets = _euclid_triplets(files, tmp_path / "euclid.tsv")
    model = tmp_path / "w1.npz"
    code, out, err = run_cli(["fit", "--method", "relative", "--input", files["docs"], "--triplets", triplets,
                              "--model", model, "--baseline-holdout", "none"])
    assert code == 0, err
    assert "warning:" in err and "falls back to the baseline" in err
    assert "the model is W = 1" in out and "Against the baseline:" in out
    metric = load(model)["metric"]
    assert metric.baseline_gain_.status == "baseline" and metric.baseline_gain_.baseline_score == 1.0
    np.testing.assert_array_equal(metric.weights_, np.ones(metric.n_features_in_))


@pytest.mark.parametrize("n_anchors, statuses", [(3, {"unchecked"}), (4, {"learned", "baseline"})])
def test_fit_relative_on_four_triplets_is_not_silent(files, tmp_path, n_anchors, statuses):
    rows = [line for line in files["triplets"].read_text(encoding="utf-8").splitlines()[1:]]
    picked, anchors = [], set()
    for line in rows:
        a = line.split("\t")[0]
        if a not in anchors and len(anchors) == n_anchors:
            continue
        anchors.add(a)
        picked.append(line)
        if len(picked) == 4:
            break
    path = tmp_path / "four.tsv"
    path.write_text("\n".join(picked) + "\n", encoding="utf-8")
    model = tmp_path / "four.npz"
    code, out, err = run_cli(["fit", "--method", "relative", "--input", files["docs"], "--triplets", path,
                              "--model", model, "--json", "--baseline-holdout", "none"])
    assert code == 0, err
    report = json.loads(out)["baseline_gain"]
    assert report["status"] in statuses
    if report["status"] != "learned":
        # a model that is unchecked or fell back says so on stderr
        assert "warning:" in err and ("not checked" in err or "falls back" in err), err
    if report["status"] == "unchecked":
        assert f"{n_anchors} anchors" in report["reason"]
    metric = load(model)["metric"]
    assert np.count_nonzero(metric.weights_) > 0



def _topic_word_triplets(folder, seed=0):
    """60 documents of 12 words drawn from four topics' words and stop words, 5 triplets per anchor
    (a document of its topic closer than one of another): W = 1 is as good as learned weights
    here and BM25 better, as search, than either."""
    rng = np.random.default_rng(seed)
    topics = ["match goal team player score league football coach win season stadium referee",
              "recipe oven flour sugar bake butter salt pepper dinner kitchen chef sauce",
              "planet orbit rocket star galaxy nasa moon launch telescope comet astronaut",
              "guitar song band album concert piano melody singer drum rhythm chord"]
    stop = "the a of and in is to it this that".split()
    labels = np.repeat(np.arange(4), 15)
    docs = folder / "topics.tsv"
    docs.write_text("".join(f"d{i}\t{' '.join(rng.choice(topics[k].split() + stop, 12))}\n"
                            for i, k in enumerate(labels)), encoding="utf-8")
    rows = []
    for a, k in enumerate(labels):
        for _ in range(5):
            same = rng.choice(np.flatnonzero((labels == k) & (np.arange(60) != a)))
            rows.append(f"d{a}\td{same}\td{rng.choice(np.flatnonzero(labels != k))}\n")
    triplets = folder / "topic_triplets.tsv"
    triplets.write_text("".join(rows), encoding="utf-8")
    return docs, triplets


@pytest.mark.parametrize("kind", ["euclid", "topics"])
def test_the_model_is_w1_only_when_the_saved_model_is_w1(files, tmp_path, kind):
    """Where the learned weights fall back to W = 1, the search check may keep W = 1 or replace it by
    the strongest baseline (BM25). The output said 'the model is W = 1' above 'The model is BM25'
    (the saved model), and where W = 1 was kept, 'The model is learned distance: what the weights
    learned did not beat it on the held-out queries' though the search check had kept it."""
    if kind == "euclid":
        docs, triplets = files["docs"], _euclid_triplets(files, tmp_path / "euclid.tsv")
    else:
        docs, triplets = _topic_word_triplets(tmp_path, seed=3)
    model = tmp_path / "m.npz"
    code, out, err = run_cli(["fit", "--method", "relative", "--input", docs, "--triplets", triplets, "--model", model])
    assert code == 0, err
    assert "did not beat W = 1" in out or "did not beat it on the" in out     # the learned weights fell back
    metric = load(model)["metric"]
    is_w1 = type(metric).__name__ == "RelativeComparisonMetric" and np.all(np.asarray(metric.weights_) == 1)
    assert ("the model is W = 1" in out) == is_w1, out
    assert ("The model is " in out) == (not is_w1), out


def test_fit_relative_and_links_too_small_for_the_search_check_say_so(files, pages, tmp_path):
    """On data too small to hold anything out as search queries, fit --relative and --links say
    the search check was not made and why (FILM and pairs do, 4621117); they printed no line."""
    rows = files["triplets"].read_text(encoding="utf-8").splitlines()[1:]
    few = tmp_path / "few.tsv"
    few.write_text("\n".join(rows[:3]) + "\n", encoding="utf-8")        # 3 anchors at most: none held out
    code, out, err = run_cli(["fit", "--method", "relative", "--input", files["docs"], "--triplets", few,
                              "--model", tmp_path / "r.npz"])
    assert code == 0, err
    assert "Search against the strongest baseline: not checked" in out and "anchor" in out, out
    docs, _ = pages
    texts = docs.read_text(encoding="utf-8").splitlines()[:6]
    small = tmp_path / "pages.tsv"
    small.write_text("\n".join(texts) + "\n", encoding="utf-8")
    links = tmp_path / "links.tsv"
    links.write_text("p0\tp1\np2\tp3\np4\tp5\n", encoding="utf-8")
    code, out, err = run_cli(["fit", "--method", "linklearn", "--input", small, "--links", links, "--model",
                              tmp_path / "l.npz", "--max-iter", "50", "--json"])
    assert code == 0, err
    report = json.loads(out)["search_baseline_gain"]
    assert report["status"] == "unchecked" and "held out" in report["reason"]

"""learnsim.fitting.fit_parts: the parts ``learnsim fit`` saves, from plain Python supervision
(clusters, pairs, triplets, links); the same model as the command line on the same data; they
survive save/load; bad supervision and options get the documented errors."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from learnsim.datasets import make_clustered_corpus
from learnsim.fitting import fit_parts
from learnsim.persistence import load, save
from conftest import run_cli

# explicit mcd settings keep the fits fast (no selection of the settings); the weighting is
# still chosen between tfidf and bm25 on the held-out clusters, as learnsim fit does by default
MCD_FIXED = {"n_basis": 16, "shrinkage": 0.01, "complement_weight": 0.3}
MCD_FLAGS = ["--n-basis", "16", "--shrinkage", "0.01", "--complement-weight", "0.3"]
FILM_FAST = {"dimensions": 4, "max_iter": 20}
FILM_FLAGS = ["--dimensions", "4", "--max-iter", "20"]
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


# --------------------------------------------------------------------------- data

@pytest.fixture(scope="module")
def corpus():
    c = make_clustered_corpus(n_clusters=8, docs_per_cluster=10, random_state=2)
    texts = [str(t) for t in c.data]
    # cluster 7 in no cluster (-1), and one label of a single text (counts as -1, as in a file)
    labels = [-1 if y == 7 else str(c.target_names[y]) for y in c.target]
    labels[0] = "solo"
    return {"texts": texts, "labels": labels, "target": np.asarray(c.target)}


@pytest.fixture(scope="module")
def text_pairs(corpus):
    texts, target = corpus["texts"], corpus["target"]
    rng = np.random.default_rng(1)
    rows = []
    for k in range(120):
        i, j = rng.choice(len(texts), 2, replace=False)
        if k % 2:     # half duplicates: two texts of one topic
            j = rng.choice(np.flatnonzero(target == target[i]))
            if j == i:
                continue
        rows.append((texts[i], texts[j], int(target[i] == target[j])))
    return rows


@pytest.fixture(scope="module")
def triplets(corpus):
    target = corpus["target"]
    rng = np.random.default_rng(3)
    rows = []
    for a in range(0, len(target), 2):
        same = np.flatnonzero((target == target[a]) & (np.arange(len(target)) != a))
        other = np.flatnonzero(target != target[a])
        rows.append((a, int(rng.choice(same)), int(rng.choice(other))))
    return rows


@pytest.fixture(scope="module")
def links(corpus):
    target = corpus["target"]
    n = len(target)
    return [(a, b) for a in range(n) for b in range(n) if a != b and target[a] == target[b] and (a + 2 * b) % 5 == 0]


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _cli_model(tmp_path, args):
    model = tmp_path / "cli.npz"
    code, _, err = run_cli(["fit"] + [str(a) for a in args] + ["--model", model, "--json"])
    assert code == 0, err
    return load(model)


# --------------------------------------------------------------------------- comparing parts

def _assert_close(a, b, where):
    """Meta of two states: equal, floats to 1e-10 (timings left out)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), where
        for key in a:
            if not ("seconds" in str(key) or "time" in str(key)):
                _assert_close(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b)):
            _assert_close(x, y, f"{where}[{k}]")
    elif isinstance(a, float) and not isinstance(b, bool) and isinstance(b, (int, float)):
        assert (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-10, (where, a, b)
    else:
        assert a == b, (where, a, b)


def assert_same_parts(got, expected):
    """The same parts: classes, meta and every array of their saved state (to 1e-10)."""
    assert sorted(got) == sorted(expected)
    for name in expected:
        assert type(got[name]) is type(expected[name]), name
        (meta_g, arrays_g), (meta_e, arrays_e) = got[name]._get_state(), expected[name]._get_state()
        _assert_close(meta_g, meta_e, name)
        assert sorted(arrays_g) == sorted(arrays_e), name
        for key in arrays_e:
            g, e = arrays_g[key], arrays_e[key]
            g, e = (g.toarray() if sp.issparse(g) else np.asarray(g)), (e.toarray() if sp.issparse(e) else np.asarray(e))
            assert g.shape == e.shape, (name, key)
            if e.dtype.kind in "fc":
                np.testing.assert_allclose(g, e, rtol=0, atol=1e-10, err_msg=f"{name}/{key}")
            else:
                np.testing.assert_array_equal(g, e, err_msg=f"{name}/{key}")


def assert_round_trip(parts, tmp_path):
    save(parts, tmp_path / "lib.npz")
    assert_same_parts(load(tmp_path / "lib.npz"), parts)


# --------------------------------------------------------------------------- each supervision

@pytest.fixture(scope="module")
def corpus_of_ten():
    """corpus's layout over ten clusters: the search check's folds each refit the recipe on the
    other clusters, whose own check needs six held-out clusters to keep mcd (compare()'s rule);
    on corpus's seven the folds' learners were Euclid and the fit ended as BM25."""
    c = make_clustered_corpus(n_clusters=10, docs_per_cluster=10, random_state=2)
    labels = [-1 if y == 9 else str(c.target_names[y]) for y in c.target]
    labels[0] = "solo"
    return {"texts": [str(t) for t in c.data], "labels": labels}


def test_clusters_fit_mcd_as_the_command_line(corpus_of_ten, tmp_path):
    corpus = corpus_of_ten
    parts = fit_parts(corpus["texts"], clusters=corpus["labels"], **MCD_FIXED)
    assert sorted(parts) == ["metric", "training", "vectorizer"]
    metric = parts["metric"]
    assert type(metric).__name__ == "MinimumClusterDistortion"
    # the weighting was chosen between tfidf and bm25 on held-out clusters, as learnsim fit does
    assert parts["vectorizer"].weighting in ("tfidf", "bm25")
    assert metric.baseline_gain_ is not None and metric.baseline_gain_.status in ("learned", "baseline")
    X = parts["vectorizer"].transform(corpus["texts"][:5])
    assert np.all(np.isfinite(metric.transform(X.astype(np.float64))))
    assert_round_trip(parts, tmp_path)
    train = _write(tmp_path / "train.tsv", [f"{lab}\t{t}" for lab, t in zip(corpus["labels"], corpus["texts"])])
    assert_same_parts(parts, _cli_model(tmp_path, ["--input", train] + MCD_FLAGS))


def test_pairs_of_texts_fit_film_with_validated_rules_as_the_command_line(text_pairs, tmp_path):
    parts = fit_parts(pairs=text_pairs, **FILM_FAST)
    # search may mix BM25 in (its term counts: "lexical") where held-out queries kept it
    assert {"match_rule", "matcher", "metric", "search", "training", "vectorizer"} <= set(parts) <= {
        "match_rule", "matcher", "metric", "search", "vectorizer", "lexical", "rerank", "training"}
    assert ("lexical" in parts) == bool(parts["search"].lexical_weight)
    assert type(parts["metric"]).__name__ == "FILM" and parts["metric"].n_components == 4
    assert 0.0 <= parts["search"].input_weight <= 1.0
    assert parts["match_rule"].matcher in ("cosine", "threshold", "knn", "classifier", "classifier+film")
    assert_round_trip(parts, tmp_path)
    pairs = _write(tmp_path / "pairs.tsv", [f"{lab}\t{a}\t{b}" for a, b, lab in text_pairs])
    assert_same_parts(parts, _cli_model(tmp_path, ["--method", "film", "--pairs", pairs] + FILM_FLAGS))


def test_index_pairs_are_the_pairs_of_their_texts(text_pairs):
    """(i, j, label) into texts fit the same model as the pairs of those texts."""
    texts = list(dict.fromkeys(t for a, b, _ in text_pairs for t in (a, b)))
    where = {t: i for i, t in enumerate(texts)}
    index_pairs = [(where[a], where[b], lab) for a, b, lab in text_pairs]
    by_index = fit_parts(texts, pairs=index_pairs, method="mcd", weighting="tfidf", **MCD_FIXED)
    by_text = fit_parts(pairs=text_pairs, method="mcd", weighting="tfidf", **MCD_FIXED)
    assert_same_parts(by_index, by_text)


def test_triplets_fit_relative_as_the_command_line(corpus, triplets, tmp_path):
    # unchecked as search, so that the relative model (not the baseline its search check may end at) is compared
    parts = fit_parts(corpus["texts"], triplets=triplets, baseline_holdout=None)
    assert sorted(parts) == ["metric", "training", "vectorizer"]
    metric = parts["metric"]
    assert type(metric).__name__ == "RelativeComparisonMetric" and metric.baseline_gain_ is not None
    assert parts["vectorizer"].weighting == "binary"
    assert_round_trip(parts, tmp_path)
    docs = _write(tmp_path / "docs.tsv", [f"d{i}\t{t}" for i, t in enumerate(corpus["texts"])])
    rows = _write(tmp_path / "triplets.tsv", [f"d{a}\td{b}\td{c}" for a, b, c in triplets])
    assert_same_parts(parts, _cli_model(tmp_path, ["--method", "relative", "--input", docs, "--triplets", rows,
                                                   "--baseline-holdout", "none"]))


def test_relative_n_documents_takes_the_vocabulary_from_the_collection(corpus, triplets):
    """n_documents: the texts after the first n are anchors only, transformed with the
    collection's vocabulary and idf (as a fit from clicks treats its query texts)."""
    texts = list(corpus["texts"])
    extra = ["zzzquery words nowhere else", "another qqqonly anchor"]
    anchored = [(len(texts), b, c) for _, b, c in triplets[:5]] + [(len(texts) + 1, b, c) for _, b, c in triplets[5:10]]
    kw = dict(weighting="tfidf", baseline_holdout=None)       # the relative model's own vectoriser
    plain = fit_parts(texts + extra, triplets=triplets + anchored, **kw)
    only = fit_parts(texts + extra, triplets=triplets + anchored, n_documents=len(texts), **kw)
    assert "zzzquery" in plain["vectorizer"].vocabulary_
    assert "zzzquery" not in only["vectorizer"].vocabulary_ and "qqqonly" not in only["vectorizer"].vocabulary_
    assert only["vectorizer"].vocabulary_ == fit_parts(texts, triplets=triplets, **kw)["vectorizer"].vocabulary_
    with pytest.raises(ValueError, match="n_documents"):
        fit_parts(texts, triplets=triplets, n_documents=len(texts) + 1)
    with pytest.raises(ValueError, match="n_documents"):
        fit_parts(texts, triplets=triplets, n_documents=0)
    with pytest.raises(ValueError, match="apply to method"):
        fit_parts(texts, clusters=corpus["labels"], n_documents=3)


def test_links_fit_linklearn_as_the_command_line(corpus, links, tmp_path):
    parts = fit_parts(corpus["texts"], links=links + [(3, 3)], max_iter=3000)   # a self-link is dropped
    assert sorted(parts) == ["metric", "training", "vectorizer"]
    metric = parts["metric"]
    # LinkLearn, or BM25 where the search check ends as BM25, the strongest baseline on every
    # linked document (a LearnedBM25 at BM25's parameters)
    assert type(metric).__name__ == "LinkLearn" or (type(metric).__name__ == "LearnedBM25"
                                                    and (metric.params_["k1"], metric.params_["b"]) == (1.5, 0.6))
    assert_round_trip(parts, tmp_path)
    docs = _write(tmp_path / "docs.tsv", [f"d{i}\t{t}" for i, t in enumerate(corpus["texts"])])
    edges = _write(tmp_path / "links.tsv", [f"d{a}\td{b}" for a, b in links])
    assert_same_parts(parts, _cli_model(tmp_path, ["--method", "linklearn", "--input", docs, "--links", edges,
                                                   "--max-iter", "3000"]))


def test_film_from_clusters_and_options_reach_the_model(corpus):
    parts = fit_parts(corpus["texts"], clusters=corpus["labels"], method="film", n_components=3, max_iter=10,
                      baseline_holdout=None, weighting="tf", random_state=4)
    metric = parts["metric"]
    assert metric.n_components == 3 and metric.random_state == 4
    assert metric.baseline_gain_ is None and metric.input_weight_ == 0.0     # unchecked: the learned cosine
    assert parts["vectorizer"].weighting == "tf"


# --------------------------------------------------------------------------- errors

TEXTS = ["red apple pie", "green apple tart", "blue sky day", "grey sky rain"]


@pytest.mark.parametrize("kwargs, error, fragment", [
    ({}, ValueError, "exactly one kind of supervision"),
    ({"clusters": [0, 0, 1, 1], "links": [(0, 1)]}, ValueError, "clusters and links"),
    ({"clusters": [0, 0, 1, 1], "method": "relative"}, ValueError, "'relative' does not learn from clusters"),
    ({"triplets": [(0, 1, 2)], "method": "mcd"}, ValueError, "'mcd' does not learn from triplets"),
    ({"clusters": [0, 0, 1, 1], "method": "lda"}, ValueError, "method must be one of"),
    ({"clusters": [0, 0, 1, 1], "n_basis_size": 3}, TypeError, "'n_basis_size'"),
    ({"clusters": [0, 0, 1, 1], "variant": "bm25"}, ValueError, "variant apply to method linklearn"),
    ({"clusters": [0, 0, 1, 1], "dimensions": 2, "n_components": 2, "method": "film"}, ValueError, "alias"),
    ({"clusters": [0, 0, 1, 1], "weighting": "okapi"}, ValueError, "weighting must be one of"),
    ({"clusters": [0, 0, 1, 1], "baseline_holdout": 1.5}, ValueError, "baseline_holdout must be in (0, 1)"),
    ({"clusters": [0, 0, 1, 1], "shrinkage": "much"}, TypeError, "shrinkage must be a number"),
    ({"clusters": [0, 0, 1, 1], "random_state": -1}, ValueError, "random_state must be >= 0"),
    ({"clusters": [0, 0, 1, 1], "random_state": 1.5}, TypeError, "random_state must be an integer"),
    ({"clusters": [0, 0, 1, 1], "paper": True, "n_basis": 2}, ValueError, "paper fixes"),
    ({"clusters": [0, 0, 1]}, ValueError, "clusters has 3 labels but texts has 4"),
    ({"clusters": [0, 0, 1, 1.5]}, TypeError, "clusters[3] must be an int, a str or None"),
    ({"clusters": [0, 1, 2, -1]}, ValueError, "no label has two or more texts"),
    # as in a file: an empty label is an error, not one cluster of the texts that have none
    ({"clusters": ["a", "a", "", ""]}, ValueError, "clusters[2] is an empty label"),
    ({"clusters": ["a", "a", " ", " "]}, ValueError, "clusters[2] is an empty label"),
    ({"clusters": "0011"}, TypeError, "clusters must be a list"),
    ({"pairs": [(0, 4, 1)]}, ValueError, "pairs[0] names text 4"),
    ({"pairs": [(0, 1, 2)]}, ValueError, "graded pair(s) are too few"),     # 2 is a score: graded
    ({"pairs": [(0, 1, "yes")]}, ValueError, "pairs[0]: the third value must be a label"),
    ({"pairs": [(0, 1)]}, ValueError, "pairs[0] must be a tuple (i, j, label)"),
    ({"pairs": [("red apple pie", "green apple tart", 1)]}, TypeError, "integer indices"),
    ({"pairs": [(0, 0, 1)]}, ValueError, "an item with itself"),
    ({"triplets": [(0, 1, 1)]}, ValueError, "repeated index"),
    ({"triplets": [(0, 1)]}, ValueError, "triplets[0] must be a tuple (anchor, closer, farther)"),
    ({"triplets": [(0, 1, -2)]}, ValueError, "triplets[0] names text -2"),
    ({"links": [(0, 1.0)]}, TypeError, "links[0] must hold integer indices"),
    ({"links": [(2, 2)]}, ValueError, "no link between two different texts"),
    ({"links": []}, ValueError, "links is empty"),
])
def test_bad_supervision_and_options_are_named(kwargs, error, fragment):
    with pytest.raises(error) as info:
        fit_parts(TEXTS, **kwargs)
    assert fragment in str(info.value)


@pytest.mark.parametrize("texts, kwargs, error, fragment", [
    (None, {"clusters": [0, 0, 1, 1]}, ValueError, "give texts"),
    ("red apple", {"clusters": [0, 0]}, TypeError, "texts must be a list of str"),
    (["a b", 3], {"clusters": [0, 0]}, TypeError, "texts[1] must be a str"),
    (None, {"pairs": [("a b", 7, 1)]}, TypeError, "two str"),
    (None, {"pairs": [("a b", "c d", 0.5)]}, ValueError, "graded pair(s) are too few"),
    (None, {"pairs": [("a b", "c d", float("nan"))]}, ValueError, "the third value must be a label"),
    # an integer of hundreds of digits is no float: named, cut short, not numpy's TypeError
    (None, {"pairs": [("a b", "c d", 10 ** 400)]}, ValueError, "(a finite number within +-1e+12); got 10000000000"),
])
def test_bad_texts_are_named(texts, kwargs, error, fragment):
    with pytest.raises(error) as info:
        fit_parts(texts, **kwargs)
    assert fragment in str(info.value)


def test_errors_of_the_fit_itself_are_value_errors(corpus, text_pairs):
    no_duplicates = [(a, b, 0) for a, b, _ in text_pairs]
    with pytest.raises(ValueError, match="no relevant pair"):
        fit_parts(pairs=no_duplicates, **FILM_FAST)
    with pytest.raises(ValueError, match="matcher chooses the duplicate rule of a FILM fitted on pairs"):
        fit_parts(corpus["texts"], clusters=corpus["labels"], method="film", matcher="knn", **FILM_FAST)
    with pytest.raises(ValueError, match="single anchor"):
        fit_parts(corpus["texts"], triplets=[(0, 1, 20), (0, 2, 30)])
    with pytest.raises(ValueError, match="learning_rate applies to variant 'paper'"):
        fit_parts(corpus["texts"], links=[(0, 1), (2, 3)], variant="bm25", learning_rate=0.1)


# --------------------------------------------------------------------------- one model shape (issue 31)

def test_fit_returns_the_pipeline_and_the_report_the_command_line_prints(corpus, tmp_path):
    import json

    from learnsim.fitting import FitResult, fit
    from learnsim.pipeline import Pipeline

    result = fit(corpus["texts"], clusters=corpus["labels"], weighting="tfidf", **MCD_FIXED)
    assert isinstance(result, FitResult) and isinstance(result.pipeline, Pipeline)
    report = result.to_dict()
    # the choices, the held-out check and the timings
    assert report["method"] == "mcd" and report["weighting"] == "tfidf" and report["n_basis"] == 16
    assert report["baseline_gain"]["status"] in ("learned", "baseline")
    assert {"interval", "gain"} <= set(report["baseline_gain"]) or "ci_low" in str(report["baseline_gain"])
    assert report["fit_seconds"] >= report["metric_seconds"] >= 0
    json.dumps(report)    # JSON-ready
    # learnsim fit --json prints the same report for the same data and options (its own
    # entries added: the model path, the unlabelled-document count)
    train = _write(tmp_path / "train.tsv", [f"{lab}\t{t}" for lab, t in zip(corpus["labels"], corpus["texts"])])
    model = tmp_path / "cli.npz"
    code, out, err = run_cli(["fit", "--input", str(train), "--weighting", "tfidf", *MCD_FLAGS, "--model", str(model),
                              "--json"])
    assert code == 0, err
    printed = json.loads(out)
    timings = {"vectorizer_seconds", "metric_seconds", "fit_seconds"}
    for key in set(report) - timings:
        assert key in printed, key
        if key != "baseline_gain":
            assert printed[key] == report[key], key
    assert printed["baseline_gain"]["status"] == report["baseline_gain"]["status"]
    # and the file it wrote is a Pipeline's
    assert_same_parts(Pipeline.load(model).parts, result.pipeline.parts)


def test_fit_options_are_the_library_s_names():
    from learnsim.fitting import FitOptions

    o = FitOptions.from_keywords("film", {"dimensions": 7, "norm": None}, 3)
    assert (o.n_components, o.norm, o.random_state) == (7, None, 3)
    with pytest.raises(TypeError, match="unknown option"):
        FitOptions.from_keywords("film", {"no_norm": True}, 0)   # the command line's name is not an option


def test_a_fit_warns_at_the_caller_s_line(corpus, text_pairs):
    # learnsim.fit reaches the checks three to six calls deeper than an estimator's fit, whose
    # hand-counted stacklevel they were written for: every warning named a line of learnsim's
    # (fitting.py:474, matching/_rule.py:281, mcd/_mcd.py:314, ...), each fit's a different one
    import warnings

    import learnsim
    from learnsim.exceptions import BaselineWarning
    from learnsim.mcd import MinimumClusterDistortion

    texts = corpus["texts"]
    calls = [lambda: learnsim.fit(texts[:6], clusters=[0, 0, 1, 1, 2, 2]),      # too few clusters: the check warns
             lambda: learnsim.fit(pairs=text_pairs, max_iter=20),
             # an estimator's own fit, as before
             lambda: MinimumClusterDistortion().fit(np.eye(6) + 0.1, [0, 0, 1, 1, 2, 2])]
    for call in calls:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        ours = [w for w in caught if issubclass(w.category, BaselineWarning) or "too few" in str(w.message)]
        assert ours, "the fit gave none of the warnings this test is about"
        assert {w.filename for w in ours} == {__file__}, [(w.filename, w.lineno, str(w.message)[:60]) for w in ours]


def test_the_chain_warning_of_a_fit_on_pairs_is_at_the_caller_s_line():
    # a non-duplicate pair whose texts a chain of duplicate pairs joins: the one warning named
    # learnsim's fitting.py (its stacklevel of 4 was counted for another depth)
    import warnings

    import learnsim

    texts = ["reset my password", "password reset help", "forgot my password", "refund my order",
             "order refund please", "where is my parcel", "parcel not delivered", "track my parcel"]
    pairs = [(0, 1, 1), (1, 2, 1), (0, 2, 0), (3, 4, 1), (5, 6, 1), (6, 7, 1), (0, 3, 0), (5, 3, 0), (2, 7, 0)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        learnsim.fit(texts, pairs=pairs)
    chains = [w for w in caught if "chains of duplicate pairs" in str(w.message)]
    assert chains and {w.filename for w in chains} == {__file__}, [(w.filename, w.lineno) for w in chains]


def test_cluster_labels_are_stripped_as_a_file_s_are():
    """' sports' and 'sports' are one cluster, ' -1' is in no cluster, as 'learnsim fit --input'
    reads them (labels compared as strings, as when read from a file); they were three clusters."""
    from learnsim.fitting import fit

    texts = ["red apple pie", "green apple tart", "apple crumble", "blue sky day", "grey sky rain", "sunny sky"]
    report = fit(texts, clusters=["fruit", " fruit", "fruit ", "sky", "sky\t", " -1"], baseline_holdout=None).report
    assert report["clusters"] == 2 and report["clustered_documents"] == 5


def test_the_report_counts_each_text_of_identical_pairs_once(text_pairs):
    """Pairs of two identical texts: report["documents"] counts distinct texts, as learnsim fit
    --pairs does (c7d4bf3); it counted the copy each such pair's second text gets as one more."""
    from learnsim.fitting import fit

    same = [(a, a, 1) for a, _, _ in text_pairs[:10]]
    rows = text_pairs + same
    distinct = {t for a, b, _ in rows for t in (a, b)}
    result = fit(pairs=rows, baseline_holdout=None, **FILM_FAST)
    assert result.report["documents"] == len(distinct)
    assert result.report["label_kind"] == "binary"
    corpus = ["a text of the corpus alone", text_pairs[0][0]]
    result = fit(pairs=rows, corpus=corpus, baseline_holdout=None, **FILM_FAST)
    assert result.report["documents"] == len(distinct) + 1 and result.report["corpus"] == 2


def test_relative_and_links_too_small_to_hold_anything_out_say_the_search_check_was_not_made():
    """Supervision too small for any held-out search query: report['search_baseline_gain'] is
    'unchecked' with the reason (there was no key: the check was skipped without a word)."""
    from learnsim.fitting import fit

    texts = ["cheap flights to rome", "rome flights cheap deals", "best pasta recipe", "pasta recipe easy",
             "python list sort", "sort a list in python"]
    for kwargs in ({"triplets": [(0, 1, 2), (2, 3, 4), (4, 5, 0)]}, {"links": [(0, 1), (2, 3), (4, 5)], "max_iter": 50}):
        report = fit(texts, **kwargs).report["search_baseline_gain"]
        assert report["status"] == "unchecked" and "held out" in report["reason"], (kwargs, report)
        assert "search_baseline_gain" not in fit(texts, baseline_holdout=None, **kwargs).report


def test_links_too_few_to_score_a_held_out_query_give_no_numpy_warning():
    """LinkLearn's validation on links too few to score one held-out query printed numpy's
    'Mean of empty slice' RuntimeWarning into the user's fit."""
    import warnings

    from learnsim.fitting import fit

    texts = ["cheap flights to rome", "rome flights cheap deals", "best pasta recipe", "pasta recipe easy",
             "python list sort", "sort a list in python"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        fit(texts, links=[(0, 1), (2, 3), (4, 5)], max_iter=50)


def test_pairs_of_identical_texts_labelled_not_duplicate_are_named(text_pairs):
    """A pair of two identical texts labelled 0 (not duplicate) gets a warning: a text is a
    duplicate of itself (they were learned from without a word)."""
    from learnsim.fitting import fit

    rows = text_pairs + [(a, a, 0) for a, _, _ in text_pairs[:3]]
    with pytest.warns(UserWarning, match="3 pair.s. of two identical texts are labelled not duplicate"):
        fit(pairs=rows, baseline_holdout=None, **FILM_FAST)
    with pytest.warns(UserWarning, match="2 pair.s. of two identical texts are labelled not duplicate"):
        fit(pairs=rows[:-1], method="mcd", baseline_holdout=None, **MCD_FIXED)


def test_judgements_left_out_are_said(corpus):
    """learnsim.fit(queries=, qrels=, corpus=) with judgements naming unknown ids warns what it left
    out, as learnsim fit --qrels notes it; it dropped them without a word (the counts only in the
    report)."""
    from learnsim.fitting import fit

    texts, target = corpus["texts"], corpus["target"]
    docs = {f"d{i}": t for i, t in enumerate(texts)}
    queries = {f"q{k}": texts[k] for k in range(0, 40, 4)}
    qrels = {f"q{k}": {f"d{i}": 1 for i in np.flatnonzero(target == target[k]) if i != k} for k in range(0, 40, 4)}
    qrels["q0"]["d999"] = 2
    qrels["nobody"] = {"d1": 1}
    with pytest.warns(UserWarning, match="left out 1 judgement.s. naming a query not in queries, 1 judgement.s. "
                                         "naming a document not in corpus"):
        result = fit(queries=queries, qrels=qrels, corpus=docs, baseline_holdout=None, **FILM_FAST)
    assert result.report["judgements"]["unknown_document"] == 1


def test_cluster_labels_differing_only_in_unicode_normalisation_are_one_cluster():
    """'ça' written precomposed (U+00E7) and as c with a combining cedilla look alike and are one
    label: they are compared in NFC (they were two clusters), as a file's labels are."""
    from learnsim.fitting import fit

    texts = [f"text number {i} about topic {i % 3}" for i in range(24)]
    report = fit(texts, clusters=["\u00e7a", "c\u0327a", "b"] * 8, method="mcd",
                 baseline_holdout=None).report
    assert report["clusters"] == 2 and report["clustered_documents"] == 24


def test_the_clusters_report_counts_single_document_labels_as_learnsim_fit_does(tmp_path):
    """report["single_document_labels"]: the labels of a single text (treated as no cluster), as
    learnsim fit --input reports them; the Python report had no such key."""
    import json

    from conftest import run_cli
    from learnsim.fitting import fit

    texts = [f"text number {i} about topic {i % 3} and more words" for i in range(14)]
    labels = ["a"] * 5 + ["b"] * 5 + ["c", "d", "e", None]
    report = fit(texts, clusters=labels, method="mcd", baseline_holdout=None).report
    path = tmp_path / "docs.tsv"
    path.write_text("".join(f"{'-1' if lab is None else lab}\t{t}\n" for lab, t in zip(labels, texts)),
                    encoding="utf-8")
    code, out, err = run_cli(["fit", "--input", path, "--method", "mcd", "--model", tmp_path / "m.npz",
                              "--baseline-holdout", "none", "--json"])
    assert code == 0, err
    cli = json.loads(out)
    assert report["single_document_labels"] == cli["single_document_labels"] == 3
    assert report["clusters"] == cli["clusters"] == 2

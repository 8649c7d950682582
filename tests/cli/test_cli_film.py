"""``learnsim fit --method film`` against its baseline, the input cosine (issue 13): FILM's own
held-out check from labelled documents; with pairs, the duplicate rule (--matcher: threshold,
classifier, knn or auto) and the search weight chosen on held-out pairs and measured against
the input cosine; ``learnsim match`` and ``evaluate`` with whichever rule the model holds."""
from __future__ import annotations

import json

import numpy as np
import pytest

from learnsim.datasets import make_clustered_corpus
from learnsim.persistence import load
from conftest import run_cli

FILM_FAST = ["--method", "film", "--dimensions", "4", "--max-iter", "20"]


@pytest.fixture(autouse=True)
def matcher_option(monkeypatch):
    """--matcher as learnsim fit registers it (cli._fit_film.MATCHER_CHOICES); added here when
    cli/fit.py does not register it yet."""
    from learnsim.cli import fit
    from learnsim.cli._fit_film import MATCHER_CHOICES, MATCHER_HELP

    original = fit.register

    def register(commands):
        parser = original(commands)
        if not any("--matcher" in action.option_strings for action in parser._actions):
            parser.add_argument("--matcher", choices=MATCHER_CHOICES, default=None, help=MATCHER_HELP)
        return parser

    monkeypatch.setattr(fit, "register", register)


def _topic_pairs(folder, seed=5, n=160):
    corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=10, random_state=seed)
    rng = np.random.default_rng(1)
    rows = []
    for k in range(n):
        i, j = rng.choice(len(corpus.data), 2, replace=False)
        if k % 2:     # half duplicates: two documents of one topic
            j = rng.choice(np.flatnonzero(corpus.target == corpus.target[i]))
            if j == i:
                continue
        rows.append((int(corpus.target[i] == corpus.target[j]), corpus.data[i], corpus.data[j]))
    pairs = folder / "pairs.tsv"
    pairs.write_text("".join(f"{a}\t{b}\t{c}\n" for a, b, c in rows), encoding="utf-8")
    docs = folder / "docs.tsv"
    docs.write_text("".join(f"d{i}\t{t}\n" for i, t in enumerate(corpus.data)), encoding="utf-8")
    return pairs, docs, rows


@pytest.fixture(scope="module")
def topic_pairs(tmp_path_factory):
    return _topic_pairs(tmp_path_factory.mktemp("film_pairs"))


def _fit(args):
    code, out, err = run_cli(["fit"] + [str(a) for a in args] + ["--json"])
    assert code == 0, err
    return json.loads(out), err


# ----------------------------------------------------------------------------- from clusters

def test_fit_from_labelled_documents_reports_film_against_the_input_cosine(tmp_path):
    corpus = make_clustered_corpus(n_clusters=8, docs_per_cluster=10, random_state=2)
    train = tmp_path / "train.tsv"
    train.write_text("".join(f"{corpus.target[i]}\t{t}\n" for i, t in enumerate(corpus.data)), encoding="utf-8")
    model = tmp_path / "film.npz"
    summary, _ = _fit(["--input", train, "--model", model] + FILM_FAST)
    metric = load(model)["metric"]
    report = summary["baseline_gain"]
    assert report["status"] in ("learned", "baseline") and report["measure"] == "average precision"
    assert report["baseline"] == "input cosine" and report["ci_low"] <= report["gain"] <= report["ci_high"]
    assert summary["input_weight"] == report["detail"]["input_weight"]
    # then search on whole held-out clusters against the strongest baseline: FILM, or that baseline
    search = summary["search_baseline_gain"]
    assert search["measure"] == "nDCG@10" and search["cold"]["n_units"] == search["n_units"]
    if summary["model"] == "learned":
        assert summary["input_weight"] == metric.input_weight_ and metric.baseline_gain_.to_dict() == report
    else:
        assert summary["model"] == summary["strongest_baseline"] and type(metric).__name__ != "FILM"
    code, out, _ = run_cli(["fit", "--input", train, "--model", model] + FILM_FAST)
    assert code == 0 and "Search against the strongest baseline: nDCG@10" in out
    if summary["model"] == "learned":
        assert "Against the baseline: average precision on" in out
    else:
        # FILM's own check is of a model not saved: the output says what the saved model is
        assert "Against the baseline:" not in out and ", the strongest baseline: what FILM" in out, out
    # --baseline-holdout none: the paper's learned cosine, unchecked
    summary, _ = _fit(["--input", train, "--model", model, "--baseline-holdout", "none"] + FILM_FAST)
    assert summary["baseline_gain"] is None and summary["input_weight"] == 0.0
    code, _, err = run_cli(["fit", "--input", train, "--model", model, "--matcher", "knn"] + FILM_FAST)
    assert code == 2 and "--matcher" in err and "--input" in err


# ----------------------------------------------------------------------------- from pairs

def test_auto_compares_every_rule_with_the_input_cosine_on_held_out_pairs(topic_pairs, tmp_path):
    pairs, _, rows = topic_pairs
    model = tmp_path / "film.npz"
    summary, _ = _fit(["--pairs", pairs, "--model", model] + FILM_FAST)
    parts = load(model)
    rule = parts["match_rule"]
    assert summary["matcher"] == rule.matcher
    assert set(summary["matcher_accuracies"]) == {"cosine", "threshold", "knn", "classifier", "classifier+film"}
    chosen = rule.matcher
    match = summary["match_baseline_gain"]
    if match["status"] == "learned":
        # the chosen rule is the most accurate on the held-out pairs (ties to the baseline)
        assert summary["matcher_accuracies"][chosen] == max(summary["matcher_accuracies"].values())
    else:
        assert chosen == "cosine"
    assert match["measure"] == "pair accuracy" and match["n_units"] == summary["validation_pairs"]
    assert match == rule.baseline_gain.to_dict() and match["detail"]["matcher"] == chosen
    # search: held-out queries over the whole collection against the strongest baseline (issue 42)
    search = summary["baseline_gain"]
    assert search["measure"] == "nDCG@10" and search == parts["search"].baseline_gain.to_dict()
    assert summary["strongest_baseline"] in ("bm25", "cosine") and search["cold"] is not None
    assert summary["search_input_weight"] == parts["search"].input_weight
    assert summary["search_bm25_weight"] == (parts["search"].lexical_weight or 0.0)
    if search["status"] == "baseline":
        # the duplicate rule keeps FILM; search is the baseline, said in its own terms
        expected = {"bm25": (0.0, 1.0), "cosine": (1.0, None)}[summary["strongest_baseline"]]
        assert (parts["search"].input_weight, parts["search"].lexical_weight) == expected
    code, out, _ = run_cli(["fit", "--pairs", pairs, "--model", model] + FILM_FAST)
    assert "Duplicate rule chosen on" in out and "Against the baseline (duplicate rule): pair accuracy" in out
    assert "Search against the strongest baseline: nDCG@10" in out


@pytest.mark.parametrize("kind", ["knn", "classifier", "threshold"])
def test_each_rule_decides_pairs_and_lists_near_duplicates(topic_pairs, tmp_path, kind):
    """Without the baseline check (--baseline-holdout none) the named rule is the model's rule;
    match and evaluate use it, whichever it is."""
    pairs, docs, rows = topic_pairs
    model = tmp_path / f"{kind}.npz"
    summary, _ = _fit(["--pairs", pairs, "--model", model, "--matcher", kind, "--baseline-holdout", "none"]
                      + FILM_FAST)
    assert summary["match_baseline_gain"] is None and summary["baseline_gain"] is None
    parts = load(model)
    assert parts["match_rule"].matcher.startswith(kind)
    assert "cosine" not in summary["matcher_accuracies"]
    code, out, err = run_cli(["match", "--model", model, "--pairs", pairs, "--json"])
    assert code == 0, err
    result = json.loads(out)
    decided = np.array([r["duplicate"] for r in result["pairs"]])
    labels = np.array([r["label"] for r in result["pairs"]])
    assert result["matcher"] == parts["match_rule"].matcher and len(decided) == len(rows)
    assert all(r["duplicate"] == (r["score"] >= result["threshold"]) for r in result["pairs"])
    assert np.mean(decided == labels) > 0.6
    code, out, err = run_cli(["evaluate", "--model", model, "--pairs", pairs, "--json"])
    assert code == 0, err
    assert json.loads(out)["accuracy"] == pytest.approx(np.mean(decided == labels))
    code, out, err = run_cli(["match", "--model", model, "--corpus", docs, "--neighbours", "4", "--json"])
    assert code == 0, err
    found = json.loads(out)
    assert found["matcher"] == result["matcher"]
    assert all(a < b for a, b in ((r["index_a"], r["index_b"]) for r in found["pairs"]))
    code, out, _ = run_cli(["match", "--model", model, "--pairs", pairs])
    assert code == 0 and "pairs are duplicates" in out


def test_a_rule_that_does_not_beat_the_input_cosine_falls_back_to_it(tmp_path):
    """Duplicates are copies of a text with one word changed, non-duplicates unrelated texts:
    the input cosine separates them perfectly, so no learned rule can beat it."""
    corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=12, random_state=3)
    texts = list(corpus.data)
    rng = np.random.default_rng(0)
    lines = []
    for k, text in enumerate(texts):
        words = text.split()
        if k % 2:
            words[rng.integers(len(words))] = "zzz"
            lines.append(f"1\t{text}\t{' '.join(words)}\n")
        else:
            other = texts[(k + 7) % len(texts)]
            lines.append(f"0\t{text}\t{other}\n")
    pairs = tmp_path / "copies.tsv"
    pairs.write_text("".join(lines), encoding="utf-8")
    model = tmp_path / "film.npz"
    code, out, err = run_cli(["fit", "--pairs", pairs, "--model", model, "--matcher", "threshold", "--json"]
                             + FILM_FAST)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["matcher_accuracies"]["cosine"] == 1.0
    assert summary["match_baseline_gain"]["status"] == "baseline" and summary["matcher"] == "cosine"
    assert "warning:" in err and "so the duplicate rule is the input cosine threshold" in err
    parts = load(model)
    assert parts["matcher"].input_weight_ == 1.0
    code, out, err = run_cli(["match", "--model", model, "--pairs", pairs, "--json"])
    result = json.loads(out)
    assert result["matcher"] == "cosine" and result["input_weight"] == 1.0
    X = parts["vectorizer"].transform([r["text_a"] for r in result["pairs"]] + [r["text_b"] for r in result["pairs"]])
    n = len(result["pairs"])
    cos = np.asarray(X[:n].multiply(X[n:]).sum(axis=1)).ravel()
    # the vectoriser gives float32 rows; the rule scores in float64
    np.testing.assert_allclose([r["score"] for r in result["pairs"]], cos, atol=1e-6)


def test_default_dimensions_stay_within_the_rank_of_a_small_pair_file(tmp_path):
    """A few templated questions: min(documents, features) exceeds the rank of their vectors;
    without --dimensions the fit uses at most that rank instead of failing."""
    subjects = ["the printer", "my laptop", "the router", "this phone", "the kettle", "our car"]
    problems = [("won't turn on", "does not power up"), ("keeps beeping", "makes a beeping noise"),
                ("is very slow", "runs slowly"), ("overheats", "gets too hot")]
    lines = ["label\ttext_a\ttext_b"]
    for i, s in enumerate(subjects):
        for j, (a, b) in enumerate(problems):
            lines.append(f"1\tWhy {s} {a}?\tHow to fix: {s} {b}")
            other, (a2, _) = subjects[(i + 1) % len(subjects)], problems[(j + 1) % len(problems)]
            lines.append(f"0\tWhy {s} {a}?\tWhy {other} {a2}?")
    summary, err = _fit_default_dimensions(lines, tmp_path, max_iter=20)
    X = load(tmp_path / "f.npz")["vectorizer"].transform([t for line in lines[1:] for t in line.split("\t")[1:]])
    rank = np.linalg.matrix_rank(X.toarray(), tol=1e-10 * np.linalg.norm(X.toarray(), 2))
    assert summary["n_components"] <= rank < min(summary["documents"], summary["features"])
    assert "rank" in err


def test_default_dimensions_stay_within_the_rank_of_many_texts_with_few_distinct_vectors(tmp_path):
    """120 texts and 140 features, but 60 distinct vectors (each text also written in capitals
    with a "!"): the default of 100 dimensions was an error ("n_components=100 is larger than
    the numerical rank") for an option the user never set."""
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(140)]
    sentences = [" ".join(rng.choice(words, 8, replace=False)) for _ in range(60)]
    lines = ["label\ttext_a\ttext_b"]
    for i, t in enumerate(sentences):
        lines.append(f"{i % 2}\t{t}\t{sentences[(i + 1) % 60].upper()}!")
    summary, err = _fit_default_dimensions(lines, tmp_path, max_iter=5)
    assert summary["n_components"] <= 60 and "60 distinct vectors among 120 texts" in err


def _fit_default_dimensions(lines, tmp_path, max_iter):
    """The --json summary and stderr of a FILM fit, default dimensions, on the pair file ``lines``."""
    path = tmp_path / "pairs.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run_cli(["fit", "--method", "film", "--pairs", path, "--model", tmp_path / "f.npz",
                              "--max-iter", str(max_iter), "--json"])
    assert code == 0, err
    return json.loads(out), err


def test_evaluate_names_the_cosine_of_a_model_without_an_encoder_as_its_own_vectors(topic_pairs, tmp_path):
    pairs, docs, _ = topic_pairs
    run_cli(["fit", "--method", "film", "--pairs", pairs, "--model", tmp_path / "f.npz", "--max-iter", "5"])
    labelled = tmp_path / "labelled.tsv"
    labelled.write_text("".join(f"t{i % 6}\t{line.split(chr(9), 1)[1]}" for i, line in
                                enumerate(docs.read_text(encoding="utf-8").splitlines(keepends=True))), encoding="utf-8")
    code, out, err = run_cli(["evaluate", "--model", tmp_path / "f.npz", "--input", labelled])
    assert code == 0, err
    assert "cosine: the cosine of the model's own vectors" in out and "sentence encoder" not in out


def test_one_cluster_is_refused_in_one_line_before_any_warning(tmp_path):
    """With every document in one cluster no triplet has a negative: the fit said so only after
    its check had warned that it held nothing out (two lines where the command gives one)."""
    path = tmp_path / "one.tsv"
    path.write_text("".join(f"same\tdocument number {i} about refunds\n" for i in range(12)), encoding="utf-8")
    code, out, err = run_cli(["fit", "--input", path, "--model", tmp_path / "m.npz", *FILM_FAST])
    assert code == 2 and not (tmp_path / "m.npz").exists()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    # in FILM's words (the sampler's named its option negatives='any', which the command has not)
    assert "FILM learns from clusters by contrasting them" in lines[0] and "needs two clusters or more; got 1" in lines[0]
    assert "negatives=" not in lines[0]


def test_a_weight_not_chosen_on_held_out_clusters_is_not_said_to_be(tmp_path):
    """Two clusters of two: too few to hold any out, so FILM's input weight is its default and the
    check says so; the similarity line still said '(weight chosen on held-out clusters)'. Such a
    fit now ends as the strongest baseline, whose output has no FILM similarity line at all; with
    the checks off, FILM is kept and its line says nothing of held-out clusters."""
    path = tmp_path / "tiny.tsv"
    path.write_text("a\tthe match ended in a draw\na\ta goal in extra time won the match\n"
                    "b\tbake the bread in a hot oven\nb\tthe oven bakes flour and butter\n", encoding="utf-8")
    code, out, err = run_cli(["fit", "--input", path, "--model", tmp_path / "m.npz", *FILM_FAST])
    assert code == 0, err
    assert "Similarity:" not in out and "The model is " in out, out
    code, out, err = run_cli(["fit", "--input", path, "--model", tmp_path / "m.npz", *FILM_FAST,
                              "--baseline-holdout", "none"])
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith("Similarity:"))
    assert "held-out" not in line, line


def test_pairs_of_two_identical_texts_count_each_text_once(tmp_path):
    """A pair of two identical texts holds a copy of its text (so that the pair has two items): the
    first line counted the copies as 'distinct texts' (12 for these 10)."""
    rows = [(1, f"how do I reset password number {i}", f"how do I reset password number {i}") for i in range(2)]
    rows += [(k % 2, f"question {k} about refunds and orders", f"another question {k} on shipping times")
             for k in range(4)]
    path = tmp_path / "pairs.tsv"
    path.write_text("".join(f"{a}\t{b}\t{c}\n" for a, b, c in rows), encoding="utf-8")
    distinct = len({t for _, a, b in rows for t in (a, b)})
    summary, err = _fit(["--pairs", path, "--model", tmp_path / "m.npz", "--baseline-holdout", "none", "--method", "film",
                     "--dimensions", "2", "--max-iter", "20"])
    assert "2 pair(s) of two identical texts" in err
    assert summary["documents"] == distinct == 10


def test_the_dimensions_note_is_printed_once(tmp_path):
    """FILM from clusters with the default dimensions capped by the texts' rank: the note said so
    once for the fit and once more for each fit of the search check on the training clusters."""
    corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=8, random_state=3)
    train = tmp_path / "train.tsv"
    train.write_text("".join(f"{corpus.target[i]}\t{t}\n" for i, t in enumerate(corpus.data)), encoding="utf-8")
    code, out, err = run_cli(["fit", "--input", train, "--model", tmp_path / "m.npz", "--method", "film",
                              "--max-iter", "20"])
    assert code == 0, err
    assert "Search against the strongest baseline: nDCG@10" in out     # the check's own fits ran
    assert sum("dimensions: FILM learns at most the rank" in line for line in err.splitlines()) == 1, err


@pytest.mark.parametrize("method", [["--method", "mcd"], FILM_FAST])
def test_too_few_clusters_for_the_search_check_say_so(tmp_path, method):
    """Two clusters cannot be held out as search queries: the search check was skipped without a
    word in the report (the help says every model is checked as search is used). Since stop 80
    they end as the strongest baseline on the clustered items, as judgements too few to check do,
    and the report says why."""
    path = tmp_path / "tiny.tsv"
    path.write_text("a\tthe match ended in a draw\na\ta goal in extra time won the match\n"
                    "b\tbake the bread in a hot oven\nb\tthe oven bakes flour and butter\n", encoding="utf-8")
    code, out, err = run_cli(["fit", "--input", path, "--model", tmp_path / "m.npz", *method])
    assert code == 0, err
    assert "Search against the strongest baseline: not checked" in out and "2 clusters of two or more items" in out, out
    assert "The model is " in out, out
    summary, _ = _fit(["--input", path, "--model", tmp_path / "m.npz", *method])
    assert summary["search_baseline_gain"]["status"] == "baseline"
    assert summary["model"] in ("bm25", "cosine"), summary["model"]


def test_pairs_of_two_identical_texts_with_a_corpus_count_each_text_once(tmp_path):
    """With --corpus, 'documents' is the distinct texts of the pairs and of the corpus: it was the
    texts with the copies of identical pairs (datasets.pairs._pair_indices) counted again."""
    rows = [(1, f"how do I reset password number {i}", f"how do I reset password number {i}") for i in range(2)]
    rows += [(k % 2, f"question {k} about refunds and orders", f"another question {k} on shipping times")
             for k in range(4)]
    path = tmp_path / "pairs.tsv"
    path.write_text("".join(f"{a}\t{b}\t{c}\n" for a, b, c in rows), encoding="utf-8")
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text(f"d1\t{rows[0][1]}\nd2\ta document on gift cards alone\n", encoding="utf-8")
    distinct = len({t for _, a, b in rows for t in (a, b)})
    summary, err = _fit(["--pairs", path, "--corpus", corpus, "--model", tmp_path / "m.npz", "--baseline-holdout",
                         "none", "--method", "film", "--dimensions", "2", "--max-iter", "20"])
    assert summary["documents"] == distinct + 1 and summary["corpus"] == 2


def _contradictory_pairs(tmp_path):
    """A pairs file of 40 pairs of texts, each labelled once duplicate and twice not."""
    rng = np.random.default_rng(1)
    words = [f"w{k}" for k in range(30)]
    rows = []
    for _ in range(40):
        a, b = " ".join(rng.choice(words, 4, replace=False)), " ".join(rng.choice(words, 4, replace=False))
        rows += [f"1\t{a}\t{b}", f"0\t{a}\t{b}", f"0\t{b}\t{a}"]
    path = tmp_path / "contradictory.tsv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_contradictory_pairs_say_so_and_a_rule_that_calls_nothing_a_duplicate_is_named(tmp_path):
    """Each pair of texts labelled once duplicate and twice not: calling every pair not a duplicate
    is the best threshold (best_threshold's inf). The fit warns of the contradiction and of a rule
    that never says duplicate, and the report says so in words (it said 'duplicate from inf.',
    silently)."""
    path = _contradictory_pairs(tmp_path)
    code, out, err = run_cli(["fit", "--pairs", path, "--model", tmp_path / "m.npz", "--method", "film",
                              "--matcher", "threshold", "--dimensions", "2", "--max-iter", "20"])
    assert code == 0, err
    # named at reading, with its lines (once: the fit's own words, without them, are not repeated)
    assert "contradictory.tsv: 40 pair(s) of the same two texts are labelled 1 on one line and 0 on another" in err
    assert "labelled both duplicate and not duplicate" not in err
    assert "inf" not in out.replace("information", "")
    assert "duplicate from no pair" in out and "calls no pair a duplicate" in err


def test_matching_with_a_rule_that_calls_nothing_a_duplicate_says_so_once(tmp_path):
    """A saved model whose duplicate threshold is infinite (fitted on contradictory pairs) answers
    0 for every pair: learnsim match says why in one line on stderr, Pipeline.match warns once at
    the caller's line (both answered 0 for every pair without a word)."""
    import warnings

    import learnsim

    path, model = _contradictory_pairs(tmp_path), tmp_path / "m.npz"
    rows = path.read_text(encoding="utf-8").splitlines()
    code, _, err = run_cli(["fit", "--pairs", path, "--model", model, "--method", "film", "--matcher", "threshold",
                            "--dimensions", "2", "--max-iter", "20", "--baseline-holdout", "none"])
    assert code == 0, err
    assert not np.isfinite(learnsim.load(model).matcher.threshold_)
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text("".join(f"d{i}\t{row.split(chr(9))[1]}\n" for i, row in enumerate(rows[:30:3])), encoding="utf-8")
    code, out, err = run_cli(["match", "--model", model, "--pairs", path])
    assert code == 0, err
    notes = [line for line in err.splitlines() if "calls no pair a duplicate" in line]
    assert len(notes) == 1 and "contradict" in notes[0], err
    code, out, err = run_cli(["match", "--model", model, "--corpus", corpus])
    assert code == 0 and "inf" not in out.replace("infinite", ""), out      # it said 'similarity >= inf'
    code, _, err = run_cli(["index", "build", "--model", model, "--corpus", corpus, "--out", tmp_path / "idx"])
    assert code == 0, err
    for command in (["dedupe", "--index", tmp_path / "idx"], ["match", "--index", tmp_path / "idx", "--text", "w1 w2"]):
        code, _, err = run_cli(command)
        assert code == 0 and sum("calls no pair a duplicate" in line for line in err.splitlines()) == 1, (command, err)
    pairs = [tuple(row.split("\t")[1:]) for row in rows[:6]]
    pipeline = learnsim.load(model)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        answers = pipeline.match(pairs)
    assert not any(a["duplicate"] for a in answers)
    said = [w for w in caught if "calls no pair a duplicate" in str(w.message)]
    assert len(said) == 1 and said[0].filename == __file__, [(w.filename, str(w.message)) for w in caught]


def test_the_dimensions_note_names_the_rank_when_copies_lower_it(tmp_path):
    """Pairs of two identical texts: each copy is a row, so the rows' rank is below min(documents,
    features); the note named only that minimum ('using 20 dimensions ... (min(documents,
    features) = 37)'), a reason that does not give 20."""
    rng = np.random.default_rng(2)
    words = [f"w{k}" for k in range(40)]
    texts = [" ".join(rng.choice(words, 5, replace=False)) for _ in range(20)]
    path = tmp_path / "pairs.tsv"
    path.write_text("".join(f"1\t{t}\t{t}\n" for t in texts), encoding="utf-8")
    code, out, err = run_cli(["fit", "--pairs", path, "--model", tmp_path / "m.npz", "--method", "film",
                              "--max-iter", "20", "--baseline-holdout", "none"])
    assert code == 0, err
    line = next(x for x in err.splitlines() if "dimensions: FILM learns at most the rank" in x)
    used = int(line.split("using ")[1].split()[0])
    assert f"rank {used}, below min(documents, features)" in line, line


def test_the_search_check_counts_the_documents_it_searches_as_distinct_texts(tmp_path):
    """Pairs of two identical texts each hold a copy of their text: the held-out search check said
    'searching 30 documents' of 20 distinct texts, counting the copies as documents (as the first
    line did before c7d4bf3). It counts distinct texts, as the report's 'documents' does."""
    import re

    path = tmp_path / "same.tsv"
    path.write_text("".join(f"{i % 2}\tt{i} word{i} shared\tt{i} word{i} shared\n" for i in range(20)),
                    encoding="utf-8")
    summary, err = _fit(["--pairs", path, "--model", tmp_path / "m.npz", "--method", "film", "--dimensions", "2",
                         "--max-iter", "20"])
    assert summary["documents"] == 20
    searched = re.search(r"searching (?:all )?(\d+) documents", summary["held_out"])
    assert searched and 0 < int(searched.group(1)) <= summary["documents"], summary["held_out"]


def test_a_pair_labelled_both_ways_is_named_once_with_its_lines(topic_pairs, tmp_path):
    # said only once every text was vectorised, naming no line: "1 pair(s) of the same two texts
    # are labelled both duplicate and not duplicate"
    _, _, rows = topic_pairs
    label, a, b = rows[3]
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("".join(f"{x}\t{y}\t{z}\n" for x, y, z in rows + [(1 - label, b, a)]), encoding="utf-8")
    _, err = _fit(["--pairs", pairs, "--model", tmp_path / "m.npz"] + FILM_FAST)
    named = [line for line in err.splitlines() if "same two texts" in line]
    assert len(named) == 1, err
    assert "pairs.tsv: 1 pair(s)" in named[0] and f"lines 4 and {len(rows) + 1}" in named[0], named[0]

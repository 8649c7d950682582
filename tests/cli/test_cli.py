"""The ``learnsim`` command line: demo, fit -> search -> evaluate, reproduce dispatch, the
document readers, and the one-line exit-status-2 message of every user error."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import learnsim
import learnsim.reproduce
from learnsim import cli, demo
from learnsim.datasets import make_clustered_corpus
from learnsim.evaluation import cluster_retrieval_report
from learnsim.io import DocumentFormatError, read_documents, read_labelled_documents
from learnsim.persistence import load
from learnsim.reproduce.records import Results
from conftest import run_cli

# explicit metric settings keep the fits of the round trip fast (no selection)
FIXED = ["--n-basis", "16", "--shrinkage", "0.01", "--complement-weight", "0.3"]


def assert_user_error(args, *fragments):
    code, out, err = run_cli(args)
    assert code == 2, (code, out, err)
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, f"expected a one-line message, got: {err!r}"
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


# --------------------------------------------------------------------------- data

@pytest.fixture(scope="module")
def corpus_files(tmp_path_factory):
    """Clusters 0-5 labelled for training, clusters 6-9 held out: in train.tsv as -1 (they shape
    the vocabulary and basis only) and labelled in test.tsv."""
    folder = tmp_path_factory.mktemp("cli_corpus")
    corpus = make_clustered_corpus(n_clusters=10, docs_per_cluster=12, random_state=2)
    held_out = corpus.target >= 6
    with open(folder / "train.tsv", "w", encoding="utf-8") as f:
        f.write("label\ttext\n")
        for text, label, out in zip(corpus.data, corpus.target, held_out):
            f.write(f"{-1 if out else corpus.target_names[label]}\t{text}\n")
    test_rows = np.flatnonzero(held_out)
    with open(folder / "test.tsv", "w", encoding="utf-8") as f:
        for i in test_rows:
            f.write(f"{corpus.target_names[corpus.target[i]]}\t{corpus.data[i]}\n")
    return {"folder": folder, "train": folder / "train.tsv", "test": folder / "test.tsv",
            "texts": [corpus.data[i] for i in test_rows], "labels": corpus.target[test_rows]}


@pytest.fixture(scope="module")
def model_path(corpus_files):
    (corpus_files["folder"] / "models").mkdir()
    path = corpus_files["folder"] / "models" / "model.npz"
    code, out, err = run_cli(["fit", "--input", corpus_files["train"], "--model", path, "--json"] + FIXED)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["documents"] == 120 and summary["clustered_documents"] == 72
    assert summary["clusters"] == 6
    assert (summary["n_basis"], summary["shrinkage"], summary["complement_weight"]) == (16, 0.01, 0.3)
    assert summary["features"] > 100 and summary["fit_seconds"] >= 0
    return path


# --------------------------------------------------------------------------- demo

@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("demo")
    code, out, err = run_cli(["demo", "--out", out_dir, "--json"])
    assert code == 0, err
    return out_dir, json.loads(out)


def test_demo_writes_results_and_plot(demo_run):
    out_dir, result = demo_run
    records = Results.read_json(out_dir / "results.json")
    assert {r["method"] for r in records.records} == set(demo.METHODS)
    assert {r["measure"] for r in records.records} == {"ap11", "r_precision", "map", "p@10", "fit_seconds"}
    assert {(r["experiment"], r["setting"]) for r in records.records} == {("demo", "synthetic")}
    assert records.value(method="mcd", measure="ap11") == pytest.approx(result["methods"]["mcd"]["ap11"])
    png = out_dir / "demo_pr.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert result["plot"] == str(png)


def test_demo_json_compares_all_methods_and_learned_metric_wins(demo_run):
    _, result = demo_run
    assert set(result["methods"]) == set(demo.METHODS)
    for row in result["methods"].values():
        for measure in ("ap11", "r_precision", "map", "p@10"):
            assert 0.0 <= row[measure] <= 1.0
        assert row["fit_seconds"] >= 0
    mcd, cosine = result["methods"]["mcd"]["ap11"], result["methods"]["cosine"]["ap11"]
    # the learned metric must beat tf-idf cosine on held-out clusters by a clear margin
    assert mcd > cosine + 0.2, (mcd, cosine)
    assert result["methods"]["mcd"]["ap11_ratio_to_cosine"] == pytest.approx(mcd / cosine)
    assert result["methods"]["cosine"]["ap11_ratio_to_cosine"] == pytest.approx(1.0)
    assert set(result["selected"]) == {"n_basis", "shrinkage", "complement_weight"}
    # the fit's own check on training clusters it held out: on this corpus learning clearly pays
    gain = result["baseline_gain"]
    assert gain["status"] == "learned" and gain["ci_low"] > 0
    assert result["corpus"]["n_test_clusters"] == 8 and result["corpus"]["n_train_clusters"] == 12
    assert len(result["pr_curves"]["mcd"]) == 11


def test_demo_human_output_prints_table_and_selection(demo_run, monkeypatch):
    _, result = demo_run
    monkeypatch.setattr(demo, "run_demo", lambda out, seed=0: result)
    code, out, err = run_cli(["demo", "--out", "ignored"])
    assert code == 0
    for method in demo.METHODS:
        assert f"\n{method} " in out
    assert "11-pt AP" in out and "AP/cosine" in out
    assert f"n_basis={result['selected']['n_basis']}" in out
    assert "Checked against Euclid on training clusters held out of the fit" in out


def test_demo_plot_is_skipped_without_matplotlib(monkeypatch, tmp_path):
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)
    path, note = demo._plot_pr_curves(np.linspace(0, 1, 11), {"a": np.ones(11)}, {"a": 1.0},
                                      tmp_path / "x.png")
    assert path is None and "pip install learnsim[plot]" in note
    assert not (tmp_path / "x.png").exists()


def test_run_demo_rejects_bad_seed(tmp_path):
    with pytest.raises(ValueError, match="seed"):
        demo.run_demo(tmp_path, seed=-1)


# --------------------------------------------------------------------------- fit / search / evaluate

def test_fit_saves_vectorizer_and_metric(model_path):
    model = load(model_path)
    assert set(model) == {"vectorizer", "metric", "training"}
    assert model["metric"].n_features_in_ == len(model["vectorizer"].vocabulary_)


def test_fit_auto_selection_and_human_summary(corpus_files, tmp_path):
    # without the held-out checks: 4 clusters are fewer groups than the search check keeps a gain on
    # (6, eec361d), so the model would end as BM25, which has no settings to select
    code, out, err = run_cli(["fit", "--input", corpus_files["test"], "--model", tmp_path / "m.npz",
                              "--weighting", "bm25", "--lsi", "30", "--baseline-holdout", "none"])
    assert code == 0, err
    assert "Fitted on 48 documents" in out and "n_basis=" in out and "saved" in out
    metric = load(tmp_path / "m.npz")["metric"]
    assert metric.cv_results_ is not None          # settings were selected, not given
    assert metric.n_features_in_ == 30


def test_fit_mcd_chooses_the_weighting_on_held_out_clusters(corpus_files, tmp_path):
    """Without --weighting, tf.idf and BM25 each get a guarded fit on the same held-out clusters;
    the saved model is the one whose model (learned or fallen back) scores best there."""
    code, out, err = run_cli(["fit", "--input", corpus_files["test"], "--model", tmp_path / "w.npz",
                              "--json"] + FIXED)
    assert code == 0, err
    summary = json.loads(out)
    scores = summary["weighting_selection"]
    assert set(scores) == {"tfidf", "bm25"}
    assert summary["weighting"] == max(scores, key=scores.get)
    gain = summary["baseline_gain"]
    used = gain["learned_score"] if gain["status"] == "learned" else gain["baseline_score"]
    assert used == pytest.approx(scores[summary["weighting"]])
    model = load(tmp_path / "w.npz")
    search = summary.get("search_baseline_gain") or {}
    if search.get("status", "learned") == "learned":
        assert model["vectorizer"].weighting == summary["weighting"]
    else:
        # 4 held-out clusters are fewer groups than the search check keeps a gain on (6): the model
        # ends as the strongest baseline, BM25 over term counts or the tf.idf cosine
        assert model["vectorizer"].weighting in ("tf", "tfidf")
    code, out, err = run_cli(["fit", "--input", corpus_files["test"], "--model", tmp_path / "w.npz"] + FIXED)
    assert code == 0, err
    if search.get("status", "learned") == "learned":
        assert "Weighting chosen on the held-out clusters" in out and "Against the baseline: " in out
    else:
        # the weighting and mcd's check against Euclid are of a model not saved: the output says
        # what the saved model is instead
        assert "Weighting chosen" not in out and "Against the baseline: " not in out, out
        assert "The model is " in out and "the strongest baseline" in out, out


def test_fit_given_weighting_is_not_searched(corpus_files, tmp_path):
    code, out, err = run_cli(["fit", "--input", corpus_files["test"], "--model", tmp_path / "w.npz",
                              "--weighting", "tfidf", "--json"] + FIXED)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["weighting"] == "tfidf" and "weighting_selection" not in summary


@pytest.mark.parametrize("bad", ["0", "1", "x", "-0.2"])
def test_fit_bad_baseline_holdout_exits_2(corpus_files, tmp_path, bad):
    code, _, err = run_cli(["fit", "--input", corpus_files["test"], "--model", tmp_path / "w.npz",
                            "--baseline-holdout", bad])
    assert code == 2 and "--baseline-holdout" in err and "Traceback" not in err


def test_fit_paper_settings(corpus_files, tmp_path):
    code, out, _ = run_cli(["fit", "--input", corpus_files["train"], "--model", tmp_path / "p.npz",
                            "--paper", "--baseline-holdout", "none", "--json"])
    assert code == 0
    summary = json.loads(out)
    assert (summary["n_basis"], summary["shrinkage"], summary["complement_weight"]) == (None, 0.0, 0.0)
    assert summary["baseline_gain"] is None


def test_fit_paper_settings_checked_against_euclid(corpus_files, tmp_path):
    """--paper is still measured against Euclid on held-out clusters: the model is the paper's
    metric when it wins there, Euclid (shrinkage = complement weight = 1) with a warning when not."""
    code, out, err = run_cli(["fit", "--input", corpus_files["train"], "--model", tmp_path / "p.npz",
                              "--paper", "--json"])
    assert code == 0, err
    summary = json.loads(out)
    gain = summary["baseline_gain"]
    assert gain["status"] in ("learned", "baseline") and gain["ci_low"] <= gain["gain"] <= gain["ci_high"]
    if gain["status"] == "learned":
        assert (summary["shrinkage"], summary["complement_weight"]) == (0.0, 0.0) and gain["gain"] > 0
    else:
        assert (summary["shrinkage"], summary["complement_weight"]) == (1.0, 1.0) and gain["gain"] <= 0
        assert "falls back to the baseline" in err
    assert load(tmp_path / "p.npz")["metric"].baseline_gain_.to_dict() == gain


def test_search_ranks_by_learned_distance(corpus_files, model_path):
    texts = corpus_files["texts"]
    code, out, err = run_cli(["search", "--model", model_path, "--corpus", corpus_files["test"],
                              "--query", texts[5], "--query", texts[20], "-k", "4", "--json"])
    assert code == 0, err
    results = json.loads(out)
    assert [r["query"] for r in results] == [texts[5], texts[20]]
    model = load(model_path)
    vec, metric = model["vectorizer"], model["metric"]
    C = vec.transform(texts).astype(float)
    D = metric.pairwise_distances(vec.transform([texts[5], texts[20]]).astype(float), C)
    for qi, res in enumerate(results):
        hits = res["hits"]
        assert [h["rank"] for h in hits] == [1, 2, 3, 4]
        assert [h["index"] for h in hits] == list(np.argsort(D[qi], kind="stable")[:4])
        np.testing.assert_allclose([h["distance"] for h in hits], np.sort(D[qi])[:4], atol=1e-6)
        assert hits[0]["distance"] == pytest.approx(0.0, abs=1e-5)   # the document itself
        assert hits[0]["id"] == f"topic{corpus_files['labels'][hits[0]['index']]}"
        assert all(len(h["text"]) <= 80 for h in hits)


def test_search_blocked_path_matches_embedding(corpus_files, model_path, monkeypatch, tmp_path):
    queries = tmp_path / "queries.txt"
    queries.write_text("\n".join(corpus_files["texts"][:7]) + "\n", encoding="utf-8")
    args = ["search", "--model", model_path, "--corpus", corpus_files["test"], "--queries", queries,
            "-k", "5", "--json"]
    _, embedded_out, _ = run_cli(args)
    monkeypatch.setattr(cli._common, "_MAX_EMBEDDING_ENTRIES", 0)   # force pairwise distances by blocks
    monkeypatch.setattr(cli._common, "_BLOCK_ENTRIES", 100)        # two queries per block
    _, blocked_out, _ = run_cli(args)
    embedded, blocked = json.loads(embedded_out), json.loads(blocked_out)
    assert len(embedded) == 7
    for a, b in zip(embedded, blocked):
        assert [h["index"] for h in a["hits"]] == [h["index"] for h in b["hits"]]
        np.testing.assert_allclose([h["distance"] for h in a["hits"]],
                                   [h["distance"] for h in b["hits"]], atol=1e-6)


def test_search_human_output_and_k_capped(corpus_files, model_path):
    word = corpus_files["texts"][0].split()[0]
    code, out, err = run_cli(["search", "--model", model_path, "--corpus", corpus_files["test"],
                              "--query", word, "-k", "500"])
    assert code == 0
    assert f"query 1: {word}" in out and "distance" in out
    assert out.startswith("Scored by MinimumClusterDistortion's learned distance (lower is closer).\n\n")
    assert len(out.strip().splitlines()) == 2 + 3 + 48   # scoring, blank, title, header, rule, 48 hits
    assert "more than the 48 corpus documents" in err
    # a query of no known word: no hits (not 48 at one distance), and stderr says why
    code, out, err = run_cli(["search", "--model", model_path, "--corpus", corpus_files["test"],
                              "--query", "zzz-not-a-term", "-k", "500"])
    assert code == 0
    assert out.strip().splitlines()[2:] == ["query 1: zzz-not-a-term", "(no document matches)"]
    assert "no word of the model's vocabulary" in err


def test_evaluate_learned_beats_cosine_on_held_out_clusters(corpus_files, model_path):
    code, out, err = run_cli(["evaluate", "--model", model_path, "--input", corpus_files["test"], "--json"])
    assert code == 0, err
    report = json.loads(out)
    assert report["documents"] == 48 and report["clusters"] == 4 and report["queries"] == 48
    learned, cosine = report["methods"]["learned"], report["methods"]["cosine"]
    for m in ("ap11", "r_precision", "map", "p@10"):
        assert report["ratio_learned_to_cosine"][m] == pytest.approx(learned[m] / cosine[m])
    assert learned["ap11"] > cosine["ap11"]
    # the blocked evaluation agrees with the full distance matrix
    model = load(model_path)
    X = model["vectorizer"].transform(corpus_files["texts"]).astype(float)
    direct = cluster_retrieval_report(-model["metric"].pairwise_distances(X), corpus_files["labels"],
                                      measures=("ap11", "map"))
    assert learned["ap11"] == pytest.approx(direct["ap11"])
    assert learned["map"] == pytest.approx(direct["map"])


def test_evaluate_human_output(corpus_files, model_path):
    code, out, _ = run_cli(["evaluate", "--model", model_path, "--input", corpus_files["test"]])
    assert code == 0
    assert "learned/cosine" in out and "11-pt AP" in out and "P@10" in out


# --------------------------------------------------------------------------- reproduce

def test_reproduce_dispatches_arguments(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(learnsim.reproduce, "run", lambda name, **kw: calls.append((name, kw)) or Results(),
                        raising=False)
    code, _, err = run_cli(["reproduce", "mochihashi", "--quick", "--out", tmp_path / "o",
                            "--json", tmp_path / "r.json", "--data-dir", tmp_path])
    assert code == 0, err
    assert calls == [("mochihashi", {"quick": True, "out_dir": str(tmp_path / "o"),
                                     "json_path": str(tmp_path / "r.json"), "data_dir": str(tmp_path)})]
    calls.clear()
    assert run_cli(["reproduce", "mochihashi"])[0] == 0
    # no --data-dir: None, so that learnsim.datasets.find_data_dir falls back to $LEARNSIM_DATA
    # no --out: the runner's default folder, named by the command (checked first, said at the end)
    assert calls == [("mochihashi", {"quick": False, "out_dir": "learnsim-reproduce-mochihashi", "json_path": None,
                                     "data_dir": None})]


def test_reproduce_film_passes_the_encoder_folder(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(learnsim.reproduce, "run", lambda name, **kw: calls.append((name, kw)) or Results(),
                        raising=False)
    assert run_cli(["reproduce", "film", "--quick", "--encoder", tmp_path])[0] == 0
    assert calls[0][0] == "film" and calls[0][1]["encoder"] == str(tmp_path)
    calls.clear()
    assert_user_error(["reproduce", "film", "--encoder", tmp_path / "nope"], "not a folder")
    assert_user_error(["reproduce", "mochihashi", "--encoder", tmp_path], "an option of 'reproduce film'")
    assert calls == []


def test_reproduce_bad_data_dir_fails_before_running(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(learnsim.reproduce, "run", lambda *a, **kw: calls.append(a), raising=False)
    assert_user_error(["reproduce", "mochihashi", "--data-dir", tmp_path / "missing"], "not an existing folder")
    assert calls == []


# --------------------------------------------------------------------------- user errors

def test_user_errors_exit_2_with_one_line(corpus_files, model_path, tmp_path):
    train = corpus_files["train"]
    malformed = tmp_path / "bad.tsv"
    malformed.write_text("label\ttext\na\tgood text\nno tab on this line\n", encoding="utf-8")
    assert_user_error(["fit", "--input", tmp_path / "missing.tsv", "--model", tmp_path / "m.npz"],
                      "missing.tsv", "no such file")
    assert_user_error(["fit", "--input", malformed, "--model", tmp_path / "m.npz"], "line 3", "no TAB")
    assert_user_error(["evaluate", "--model", model_path, "--input", malformed], "line 3")
    assert_user_error(["reproduce", "nosuchpaper"], "invalid choice", "mochihashi")
    for bad in ("0", "1.5", "-3", "many"):
        assert_user_error(["fit", "--input", train, "--model", tmp_path / "m.npz", "--lsi", bad], "--lsi")
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("args, fragment", [
    (["fit", "--input", "{train}", "--model", "{tmp}/m.npz", "--paper", "--shrinkage", "0.1"], "--paper"),
    (["fit", "--input", "{train}", "--model", "{tmp}/m.npz", "--n-basis", "zero"], "--n-basis"),
    (["fit", "--input", "{train}", "--model", "{tmp}/m.npz", "--shrinkage", "2"], "--shrinkage"),
    (["fit", "--input", "{train}", "--model", "{tmp}/m.npz", "--complement-weight", "-1"], "--complement-weight"),
    (["fit", "--input", "{train}", "--model", "{tmp}/m.npz", "--weighting", "okapi"], "--weighting"),
    (["fit", "--input", "{train}", "--model", "{tmp}"], "is a folder"),
    # .csv is read since issue 32 (part 7); this header names neither label nor text
    (["fit", "--input", "{tmp}/docs.csv", "--model", "{tmp}/m.npz"], "line 1: the header of a .csv file must name"),
    (["fit", "--input", "{tmp}/singletons.tsv", "--model", "{tmp}/m.npz"], "two or more documents"),
    (["fit", "--input", "{tmp}/nolabel.jsonl", "--model", "{tmp}/m.npz"], 'line 2: no "label"'),
    (["fit", "--model", "{tmp}/m.npz"], "--input"),
    (["search", "--model", "{tmp}/notamodel.npz", "--corpus", "{train}", "--query", "x"], "not a learnsim model"),
    (["search", "--model", "{model}", "--corpus", "{train}"], "--query"),
    (["search", "--model", "{model}", "--corpus", "{train}", "--query", "x", "-k", "0"], "positive integer"),
    (["search", "--model", "{model}", "--corpus", "{tmp}/missing.txt", "--query", "x"], "no such file"),
    (["search", "--model", "{model}", "--corpus", "{train}", "--query", " "], "must not be empty"),
    (["evaluate", "--model", "{tmp}/missing.npz", "--input", "{train}"], "does not exist"),
    (["demo", "--seed", "-1"], "--seed"),
    (["frobnicate"], "invalid choice"),
    ([], "required"),
])
def test_bad_usage_exits_2(args, fragment, corpus_files, model_path, tmp_path):
    (tmp_path / "docs.csv").write_text("a,b\n", encoding="utf-8")
    (tmp_path / "singletons.tsv").write_text("a\tone text\nb\tanother text\n", encoding="utf-8")
    (tmp_path / "nolabel.jsonl").write_text('{"text": "x", "label": "a"}\n{"text": "y"}\n', encoding="utf-8")
    (tmp_path / "notamodel.npz").write_bytes(b"not a zip file")
    fill = {"train": corpus_files["train"], "tmp": tmp_path, "model": model_path}
    assert_user_error([a.format(**fill) for a in args], fragment)


def test_debug_flag_shows_the_traceback(tmp_path):
    with pytest.raises(FileNotFoundError):
        run_cli(["--debug", "fit", "--input", tmp_path / "missing.tsv", "--model", tmp_path / "m.npz"])


def test_version_and_help():
    code, out, _ = run_cli(["--version"])
    assert code == 0 and out.strip() == f"learnsim {learnsim.__version__}"
    for command in ("demo", "fit", "search", "evaluate", "reproduce"):
        code, out, _ = run_cli([command, "--help"])
        assert code == 0 and "examples:" in out and f"learnsim {command}" in out


def test_python_m_learnsim_help():
    proc = subprocess.run([sys.executable, "-m", "learnsim", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "usage: learnsim" in proc.stdout
    for command in ("demo", "fit", "search", "evaluate", "reproduce"):
        assert command in proc.stdout


# --------------------------------------------------------------------------- readers

def test_read_labelled_tsv_and_jsonl(tmp_path):
    tsv = tmp_path / "d.txt"
    tsv.write_bytes("\ufefflabel\ttext\n\nsport\tgoal scored\r\n-1\tno cluster here\nsport\ta\ttab inside\n"
                    .encode("utf-8"))
    docs = read_labelled_documents(tsv)
    assert docs.texts == ["goal scored", "no cluster here", "a\ttab inside"]
    assert docs.labels == ["sport", None, "sport"] and docs.line_numbers == [3, 4, 5]
    codes, names, dropped = docs.cluster_codes(min_size=2)
    assert codes.tolist() == [0, -1, 0] and names == ["sport"] and dropped == 0

    jsonl = tmp_path / "d.jsonl"
    jsonl.write_text('{"text": "a b", "label": 3, "id": 7}\n{"text": "c", "label": null}\n'
                     '{"text": "d", "label": "3"}\n{"text": "e", "label": "x"}\n', encoding="utf-8")
    docs = read_labelled_documents(jsonl)
    assert docs.ids == ["7", None, None, None] and docs.labels == ["3", None, "3", "x"]
    codes, names, dropped = docs.cluster_codes(min_size=2)
    assert codes.tolist() == [0, -1, 0, -1] and names == ["3"] and dropped == 1


def test_read_corpus_formats(tmp_path):
    lines = tmp_path / "c.txt"
    lines.write_text("first document\nsecond\twith a tab\n", encoding="utf-8")
    docs = read_documents(lines)
    assert docs.texts == ["first document", "second\twith a tab"] and docs.ids == [None, None]
    tsv = tmp_path / "c.tsv"
    tsv.write_text("id\ttext\nd1\tfirst\nd2\tsecond\n", encoding="utf-8")
    docs = read_documents(tsv)
    assert docs.texts == ["first", "second"] and docs.ids == ["d1", "d2"] and docs.labels is None
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text('{"text": "x", "id": "a"}\n{"text": "y"}\n', encoding="utf-8")
    docs = read_documents(jsonl)
    assert docs.ids == ["a", None] and docs.labels is None     # not every document is labelled
    jsonl.write_text('{"text": "x", "label": "a"}\n{"text": "y", "label": -1}\n', encoding="utf-8")
    assert read_documents(jsonl).labels == ["a", None]


@pytest.mark.parametrize("name, content, reader, message", [
    ("e.tsv", b"", read_labelled_documents, "contains no documents"),
    ("e.tsv", b"a\tok\n\tno label\n", read_labelled_documents, "line 2: empty label"),
    ("e.tsv", b"a\tok\nb\t  \n", read_labelled_documents, "line 2: empty text"),
    ("e.tsv", b"a\tok\nb\t\xff\xfe\n", read_labelled_documents, "line 2: not UTF-8"),
    ("e.jsonl", b'{"text": "a", "label": 1}\n[1, 2]\n', read_labelled_documents, "line 2: expected a JSON object"),
    ("e.jsonl", b'{"text": "a", "label": 1}\n{bad json\n', read_labelled_documents, "line 2: invalid JSON"),
    ("e.jsonl", b'{"text": "a", "label": 1.5}\n', read_labelled_documents, '"label" must be'),
    ("e.jsonl", b'{"txt": "a"}\n', read_documents, 'line 1: no "text" field'),
    ("e.tsv", b"d1\tfine\nno tab\n", read_documents, "line 2: no TAB"),
    ("e.md", b"x\n", read_documents, "unknown file type"),
])
def test_reader_errors_name_the_line(tmp_path, name, content, reader, message):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DocumentFormatError, match=message.replace("[", r"\[")):
        reader(path, encoding_errors="strict")


# --------------------------------------------------------------------------- fit --method film / explain

# small and quick: the CLI plumbing is tested here, FILM itself in test_film.py
FILM_FAST = ["--method", "film", "--dimensions", "4", "--max-iter", "15"]


@pytest.fixture(scope="module")
def film_model(corpus_files):
    path = corpus_files["folder"] / "film.npz"
    # unchecked: a FILM model whatever the checks would keep (these tests are about FILM's files and
    # explanations; on these 120 texts the search check keeps BM25)
    code, out, err = run_cli(["fit", "--input", corpus_files["train"], "--model", path, "--json",
                              "--baseline-holdout", "none"] + FILM_FAST)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["method"] == "film" and summary["n_components"] == 4
    assert summary["documents"] == 120 and summary["clusters"] == 6
    assert summary["triplets"] > 0 and summary["n_iter"] <= 15 and summary["svd_rank"] == 20
    return path


@pytest.fixture(scope="module")
def pairs_file(tmp_path_factory):
    """Duplicate pairs in the Quora sample layout: documents of one topic are duplicates."""
    corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=8, random_state=4)
    rng = np.random.default_rng(0)
    path = tmp_path_factory.mktemp("pairs") / "pairs.tsv"
    rows = []
    for k in range(60):
        i, j = rng.choice(len(corpus.data), 2, replace=False)
        rows.append((int(corpus.target[i] == corpus.target[j]), corpus.data[i], corpus.data[j], k))
    by_topic = [np.flatnonzero(corpus.target == t) for t in range(6)]
    for k, members in enumerate(by_topic):      # at least one duplicate pair per topic
        rows.append((1, corpus.data[members[0]], corpus.data[members[1]], 100 + k))
    with open(path, "w", encoding="utf-8") as f:
        f.write("label\tquestion1\tquestion2\tpair_id\n")
        for label, a, b, k in rows:
            f.write(f"{label}\t{a}\t{b}\t{k}\n")
    return path, len(rows), sum(r[0] for r in rows)


def test_fit_pairs_headerless_float_labels_are_duplicates(pairs_file, tmp_path):
    """label<TAB>text_a<TAB>text_b without header, labels written 1.0/0.0: duplicates and
    non-duplicates, as with a 'label' header (before: graded pairs, scores 0 to 1, fitted as a
    regression); the report says how the labels were read."""
    path, n_pairs, n_duplicates = pairs_file
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    headerless = tmp_path / "float-labels.tsv"
    headerless.write_text("".join(f"{int(label)}.0\t{a}\t{b}\n" for label, a, b, _ in (line.split("\t") for line in lines)),
                          encoding="utf-8")
    code, out, err = run_cli(["fit", "--pairs", headerless, "--model", tmp_path / "f.npz", "--json",
                              "--baseline-holdout", "none"] + FILM_FAST)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["label_kind"] == "binary" and summary["duplicate_pairs"] == n_duplicates
    assert summary["pairs"] == n_pairs


def test_fit_film_saves_vectorizer_and_film(film_model):
    from learnsim.film import FILM

    model = load(film_model)
    assert set(model) == {"vectorizer", "metric", "training"}
    assert isinstance(model["metric"], FILM)
    assert model["metric"].components_.shape == (4, len(model["vectorizer"].vocabulary_))


def test_fit_film_from_pairs(pairs_file, tmp_path):
    path, n_pairs, n_duplicates = pairs_file
    code, out, err = run_cli(["fit", "--pairs", path, "--model", tmp_path / "f.npz"] + FILM_FAST)
    assert code == 0, err
    assert f"Fitted on {n_pairs} pairs ({n_duplicates} duplicates; the labels read as 1 = duplicate" in out
    assert "FILM, 4 dimensions" in out and "triplets" in out
    # the same file through --json: one triplet per duplicate direction and negative kind
    code, out, _ = run_cli(["fit", "--pairs", path, "--model", tmp_path / "f.npz", "--json"] + FILM_FAST)
    summary = json.loads(out)
    assert summary["pairs"] == n_pairs and summary["duplicate_pairs"] == n_duplicates
    # whole groups of pairs are held out (about 20 %) to choose the rules and check search; the
    # triplets' negatives come from the collection (hard ones by BM25, random ones) and the labels
    assert 0 < summary["validation_pairs"] < n_pairs
    assert summary["triplets"] == sum(summary["negatives"].values()) > 0
    assert 0.0 <= summary["input_weight"] <= 1.0 and 0.0 <= summary["validation_accuracy"] <= 1.0
    report = summary["baseline_gain"]
    assert report["measure"] == "nDCG@10" and 0 < report["cold"]["n_units"] <= report["n_units"]
    assert summary["strongest_baseline"] in ("bm25", "cosine") and "held_out" in summary


def test_fit_mcd_from_pairs_uses_groups_of_duplicates(pairs_file, tmp_path):
    path, n_pairs, _ = pairs_file
    code, out, err = run_cli(["fit", "--method", "mcd", "--pairs", path, "--model", tmp_path / "m.npz", "--json"]
                             + FIXED)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["method"] == "mcd" and summary["pairs"] == n_pairs
    from learnsim.datasets import load_quora_pairs
    from learnsim.supervision import pairs_to_clusters

    data = load_quora_pairs(path)
    groups = pairs_to_clusters(data.pairs, len(data.texts))
    assert summary["clusters"] == groups.n_clusters and summary["documents"] == len(data.texts)
    assert summary["clustered_documents"] == int((np.asarray(groups.labels) >= 0).sum())


def test_explain_prints_top_words_of_every_dimension(film_model):
    from learnsim.evaluation.explain import top_features

    code, out, err = run_cli(["explain", "--model", film_model, "--top", "3"])
    assert code == 0, err
    model = load(film_model)
    names = model["vectorizer"].get_feature_names_out()
    assert out.startswith(f"FILM: 4 learned dimensions over {len(names)} words.")
    for info in top_features(model["metric"], names, 3):
        block = out.split(f"dimension {info.dimension} (scale ")[1]
        plus, minus = block.splitlines()[1:3]
        assert plus.startswith("  + ") and minus.startswith("  - ")
        assert plus[4:].split(", ")[0] == f"{info.positive[0].feature} {info.positive[0].weight:+.4f}"
        assert minus.count(",") == len(info.negative) - 1


def test_explain_json_dimensions(film_model):
    code, out, err = run_cli(["explain", "--model", film_model, "--dimension", "3", "--dimension", "1",
                              "--top", "2", "--json"])
    assert code == 0, err
    result = json.loads(out)
    assert result["metric"] == "FILM" and result["n_dimensions"] == 4 and "pair" not in result
    assert [d["dimension"] for d in result["dimensions"]] == [3, 1]
    metric = load(film_model)["metric"]
    for d in result["dimensions"]:
        L = metric.components_[d["dimension"]]
        assert [w["index"] for w in d["positive"]] == list(np.argsort(-L)[:2])
        assert d["scale"] == pytest.approx(metric.scales_[d["dimension"]])


def test_explain_pair(film_model, corpus_files):
    texts = corpus_files["texts"]
    a, b = texts[0], texts[1]
    code, out, err = run_cli(["explain", "--model", film_model, "--pair", a, b, "--top", "4", "--json"])
    assert code == 0, err
    result = json.loads(out)
    assert "dimensions" not in result                      # --pair alone: only the pair
    pair = result["pair"]
    model = load(film_model)
    X = model["vectorizer"].transform([a, b]).astype(float)
    # explain decomposes FILM's learned cosine (the validated mix adds the input cosine to it)
    assert pair["cosine"] == pytest.approx(model["metric"].learned_similarity(X[0], X[1])[0, 0], rel=1e-9)
    listed = sum(p["contribution"] for p in pair["word_pairs"])
    assert listed + pair["omitted_word_pairs"] == pytest.approx(pair["inner_product"], rel=1e-9)
    assert len(pair["word_pairs"]) <= 8 and pair["text_a"] == a

    code, out, err = run_cli(["explain", "--model", film_model, "--pair", a, b, "--top", "4",
                              "--dimension", "0"])
    assert code == 0, err
    assert "dimension 0 (scale" in out and "dimension 1 (scale" not in out
    assert f"Cosine in the learned space {pair['cosine']:.4f}" in out
    assert "word of A" in out and "words of A:" in out and "dimensions:" in out
    top = pair["word_pairs"][0]
    assert any(line.split()[:2] == [top["feature_a"], top["feature_b"]] for line in out.splitlines())


def test_explain_mcd_model_pair(model_path, corpus_files):
    a, b = corpus_files["texts"][2], corpus_files["texts"][30]
    code, out, err = run_cli(["explain", "--model", model_path, "--pair", a, b, "--json"])
    assert code == 0, err
    pair = json.loads(out)["pair"]
    model = load(model_path)
    X = model["vectorizer"].transform([a, b]).astype(float)
    assert pair["distance"] == pytest.approx(model["metric"].pair_distance([[X[0].toarray()[0],
                                                                             X[1].toarray()[0]]])[0], rel=1e-8)
    # complement_weight 0.3: part of the similarity lies outside the learned dimensions
    assert pair["residual_contribution"] != 0.0


@pytest.mark.parametrize("name, scoring", [("cosine", "tf.idf cosine"), ("bm25", "BM25")])
def test_explain_of_a_model_that_kept_its_baseline_says_so(name, scoring, tmp_path):
    """A fit that ended as its baseline (README's tickets: "The model is tf.idf cosine") holds the
    baseline's term weights; explain refused it as "LinkLearn is not a linear metric", a method
    the user never fitted."""
    from learnsim._baseline_models import baseline_pipeline

    path = tmp_path / f"{name}.npz"
    baseline_pipeline(name, make_clustered_corpus(n_clusters=3, docs_per_cluster=4, random_state=5).data).save(path)
    for extra in ([], ["--pair", "red apple", "green apple"]):
        line = assert_user_error(["explain", "--model", path] + extra, f"the {scoring} baseline",
                                 "no learned dimensions")
        assert "LinkLearn" not in line and "BM25 is not" not in line


def test_explain_of_a_pairs_model_that_uses_none_of_its_dimensions_says_so(film_model, tmp_path):
    """README's pairs model (fit --method film --pairs examples/pairs.tsv) keeps its metric but
    searches by BM25 and decides duplicates by the input cosine: explain described its FILM
    dimensions without a word that neither search nor match uses them."""
    from pathlib import Path

    pairs = Path(__file__).resolve().parents[2] / "examples" / "pairs.tsv"
    path = tmp_path / "pairs.npz"
    assert run_cli(["fit", "--method", "film", "--pairs", pairs, "--model", path])[0] == 0
    pipeline = learnsim.Pipeline.load(path)
    # README's model, as this test reads it: both rules fell back to their baselines
    assert pipeline.search_rule.lexical_weight == 1.0 and pipeline.match_rule.matcher == "cosine"
    for extra in ([], ["--pair", "how do I print", "print a page"]):
        code, out, err = run_cli(["explain", "--model", path, "--top", "2"] + extra)
        assert code == 0, err
        head = " ".join(out.split("\n\n")[0].split())
        assert "Neither 'learnsim search' nor 'learnsim match' uses these learned dimensions" in head, head
        assert "Okapi BM25" in head and "by the input cosine" in head, head
        result = json.loads(run_cli(["explain", "--model", path, "--top", "2", "--json"] + extra)[1])
        assert result["used_by"] == [] and "Neither" in result["note"]
    # a FILM whose search and match use its metric: no such note
    result = json.loads(run_cli(["explain", "--model", film_model, "--top", "2", "--json"])[1])
    assert result["used_by"] == ["search", "match"] and "note" not in result


def test_explain_lsi_model_over_words(corpus_files, tmp_path):
    path = tmp_path / "lsi.npz"
    # the check off: what is explained is FILM over LSI, whatever its held-out clusters say
    code, _, err = run_cli(["fit", "--input", corpus_files["train"], "--model", path, "--lsi", "20",
                            "--baseline-holdout", "none"] + FILM_FAST)
    assert code == 0, err
    a, b = corpus_files["texts"][3], corpus_files["texts"][4]
    code, out, err = run_cli(["explain", "--model", path, "--pair", a, b, "--dimension", "0", "--json"])
    assert code == 0, err
    result = json.loads(out)
    model = load(path)
    vectorizer, metric = model["vectorizer"], model["metric"]
    assert result["n_words"] == len(vectorizer.terms_) and result["lsi_components"] == 20
    assert all(w["feature"] in vectorizer.vocabulary_ for w in result["dimensions"][0]["positive"])
    Z = vectorizer.transform([a, b]).astype(float)                  # the LSI inputs the model sees
    assert result["pair"]["cosine"] == pytest.approx(metric.learned_similarity(Z[:1], Z[1:])[0, 0], rel=1e-5)
    code, out, _ = run_cli(["explain", "--model", path])
    assert "through 20 LSI dimensions" in out


@pytest.mark.parametrize("args, fragment", [
    (["explain", "--model", "{film}", "--dimension", "4"], "dimension 4 is out of range"),
    (["explain", "--model", "{film}", "--dimension", "-1"], "--dimension"),
    (["explain", "--model", "{film}", "--top", "0"], "--top"),
    (["explain", "--model", "{film}", "--pair", "only one"], "--pair"),
    (["explain", "--model", "{film}", "--pair", " ", "x"], "must not be empty"),
    (["explain", "--model", "{tmp}/missing.npz"], "does not exist"),
    (["explain"], "--model"),
    (["fit", "--input", "{train}", "--model", "{tmp}/m.npz", "--method", "film", "--n-basis", "16"],
     "--n-basis applies to --method mcd only"),
    (["fit", "--input", "{train}", "--model", "{tmp}/m.npz", "--dimensions", "5"], "--method film only"),
    (["fit", "--input", "{train}", "--model", "{tmp}/m.npz", "--method", "svm"], "--method"),
    (["fit", "--input", "{train}", "--model", "{tmp}/m.npz", "--method", "film", "--max-iter", "-1"],
     "--max-iter"),
    (["fit", "--input", "{train}", "--model", "{tmp}/m.npz", "--method", "film", "--dimensions", "1000"],
     "n_components=1000 is larger"),
    (["fit", "--input", "{train}", "--pairs", "{train}", "--model", "{tmp}/m.npz"], "not allowed with"),
    (["fit", "--pairs", "{tmp}/missing.tsv", "--model", "{tmp}/m.npz", "--method", "film"], "no such file"),
    (["fit", "--pairs", "{tmp}/badpairs.tsv", "--model", "{tmp}/m.npz", "--method", "film"], "line 2"),
    (["fit", "--pairs", "{tmp}/nodup.tsv", "--model", "{tmp}/m.npz", "--method", "film"], "no relevant pair"),
])
def test_explain_and_film_bad_usage_exits_2(args, fragment, corpus_files, film_model, tmp_path):
    # a label that is neither 0/1 nor a number (a number other than 0/1 makes the pairs graded)
    (tmp_path / "badpairs.tsv").write_text("1\ta b\tc d\t1\nmaybe\ta\tb\t2\n", encoding="utf-8")
    (tmp_path / "nodup.tsv").write_text("0\tapple pie\tcar wash\t1\n0\tred fox\tgreen tea\t2\n", encoding="utf-8")
    fill = {"train": corpus_files["train"], "tmp": tmp_path, "film": film_model}
    assert_user_error([a.format(**fill) for a in args], fragment)
    assert not (tmp_path / "m.npz").exists()


def test_explain_help():
    code, out, _ = run_cli(["explain", "--help"])
    assert code == 0 and "examples:" in out and "learnsim explain" in out and "--pair" in out
    code, out, _ = run_cli(["fit", "--help"])
    assert "--method" in out and "--pairs" in out and "--dimensions" in out


# --------------------------------------------------------------------------- linklearn

@pytest.fixture(scope="module")
def linked_files(tmp_path_factory):
    """Pages of 8 topics, each linking to 3 random pages of its own topic: the links say which
    words matter, as Wikipedia's do."""
    folder = tmp_path_factory.mktemp("cli_links")
    corpus = make_clustered_corpus(n_clusters=8, docs_per_cluster=20, random_state=5)
    rng = np.random.default_rng(0)
    ids = [f"page{i}" for i in range(len(corpus.data))]
    with open(folder / "pages.tsv", "w", encoding="utf-8") as f:
        for doc_id, text in zip(ids, corpus.data):
            f.write(f"{doc_id}\t{text}\n")
    with open(folder / "links.tsv", "w", encoding="utf-8") as f:
        f.write("source\ttarget\n")
        for i, label in enumerate(corpus.target):
            same = np.flatnonzero((corpus.target == label) & (np.arange(len(ids)) != i))
            for j in rng.choice(same, size=3, replace=False):
                f.write(f"{ids[i]}\t{ids[j]}\n")
    with open(folder / "test.tsv", "w", encoding="utf-8") as f:
        for text, label in zip(corpus.data, corpus.target):
            f.write(f"{corpus.target_names[label]}\t{text}\n")
    return {"folder": folder, "pages": folder / "pages.tsv", "links": folder / "links.tsv",
            "test": folder / "test.tsv", "texts": list(corpus.data), "labels": corpus.target}


@pytest.fixture(scope="module")
def linklearn_model(linked_files):
    path = linked_files["folder"] / "ll.npz"
    # unchecked: a LinkLearn whatever the checks keep (on these 160 pages the search check keeps BM25)
    code, out, err = run_cli(["fit", "--method", "linklearn", "--input", linked_files["pages"], "--links",
                              linked_files["links"], "--model", path, "--max-iter", "3000", "--json",
                              "--baseline-holdout", "none"])
    assert code == 0, err
    summary = json.loads(out)
    # a link and its reverse are one: paper 002's L(d) is the documents linked with d either way
    rows = linked_files["links"].read_text(encoding="utf-8").splitlines()[1:]
    n_linked = len({frozenset(row.split("\t")) for row in rows})
    assert n_linked < 480       # some pages link to each other: the test can fail
    assert summary["documents"] == 160 and summary["links"] == n_linked
    assert summary["train_documents"] + summary["validation_documents"] == 160
    assert summary["validation_documents"] == 40
    assert 0 < summary["train_links"] + summary["validation_links"] < n_linked   # crossing links dropped
    assert summary["n_iter"] <= 3000 and 0 < summary["validation_ap"] <= 1
    return path


def test_fit_linklearn_saves_vectorizer_and_weighting(linklearn_model):
    from learnsim.linklearn import LinkLearn
    from learnsim.persistence import load

    model = load(linklearn_model)
    assert isinstance(model["metric"], LinkLearn)
    assert model["vectorizer"].weighting == "tf"


def test_search_with_linklearn_ranks_by_learned_score(linked_files, linklearn_model):
    query = linked_files["texts"][3]
    code, out, err = run_cli(["search", "--model", linklearn_model, "--corpus", linked_files["pages"],
                              "--query", query, "-k", "5", "--json"])
    assert code == 0, err
    hits = json.loads(out)[0]["hits"]
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    # the scores are the index's: binary query against the learned weights of the corpus, over
    # the corpus' own vocabulary (issue 32, part 6)
    expected = learnsim.load(linklearn_model).similarity([query], linked_files["texts"])[0]
    assert hits[0]["index"] == int(np.argmax(expected))
    assert scores == pytest.approx(np.sort(expected)[::-1][:5], rel=1e-5)
    code, out, _ = run_cli(["search", "--model", linklearn_model, "--corpus", linked_files["pages"],
                            "--query", query, "-k", "2"])
    assert code == 0 and "Scored by LinkLearn" in out and "score" in out.splitlines()[3]


def test_evaluate_with_linklearn_beats_chance(linked_files, linklearn_model):
    code, out, err = run_cli(["evaluate", "--model", linklearn_model, "--input", linked_files["test"], "--json"])
    assert code == 0, err
    report = json.loads(out)
    # 8 topics of 20 pages: a random ranking has AP near 19/159 = 0.12
    assert report["methods"]["learned"]["map"] > 0.3, report["methods"]


def test_fit_linklearn_counts_the_self_links_it_drops(linked_files, tmp_path):
    """Self-links were dropped by the reader without a word (the library's Links counts them)."""
    links = linked_files["links"].read_text(encoding="utf-8").splitlines()
    path = tmp_path / "links.tsv"
    path.write_text("\n".join(links[:40] + ["page0\tpage0", "page3\tpage3"]) + "\n", encoding="utf-8")
    code, out, err = run_cli(["fit", "--method", "linklearn", "--input", linked_files["pages"], "--links", path,
                              "--model", tmp_path / "m.npz", "--max-iter", "50", "--baseline-holdout", "none"])
    assert code == 0, err
    noted = [line for line in err.splitlines() if "self-link" in line]
    assert len(noted) == 1 and "dropped 2 self-link(s)" in noted[0], err


@pytest.mark.parametrize("links, fragment", [
    ("page0\tnowhere\n", "link to unknown document 'nowhere'"),
    ("page0\tpage0\n", "no link between two different documents"),
    ("page0 page1\n", "expected source_id<TAB>target_id"),
])
def test_fit_linklearn_bad_links_exit_2(links, fragment, linked_files, tmp_path):
    path = tmp_path / "links.tsv"
    path.write_bytes(links if isinstance(links, bytes) else links.encode("utf-8"))
    assert_user_error(["fit", "--method", "linklearn", "--input", linked_files["pages"], "--links", path,
                       "--model", tmp_path / "m.npz"], fragment)
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("args, fragment", [
    (["--links", "{links}", "--weighting", "bm25"], "--weighting applies to --method film / mcd / relative only"),
    (["--links", "{links}", "--dimensions", "4"], "--dimensions applies to --method film only"),
    ([], "--method linklearn needs --links"),
    (["--links", "{links}", "--learning-rate", "0"], "--learning-rate"),
    (["--links", "{links}", "--validation-fraction", "1"], "--validation-fraction"),
])
def test_fit_linklearn_bad_options_exit_2(args, fragment, linked_files, tmp_path):
    fill = {"links": linked_files["links"]}
    assert_user_error(["fit", "--method", "linklearn", "--input", linked_files["pages"],
                       "--model", tmp_path / "m.npz"] + [a.format(**fill) for a in args], fragment)


def test_fit_linklearn_needs_ids(linked_files, tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text("a page about cats\nanother about dogs\n", encoding="utf-8")
    assert_user_error(["fit", "--method", "linklearn", "--input", plain, "--links", linked_files["links"],
                       "--model", tmp_path / "m.npz"], "needs an id for every document")
    assert_user_error(["fit", "--method", "mcd", "--input", linked_files["pages"], "--links",
                       linked_files["links"], "--model", tmp_path / "m.npz"], "--links applies to --method linklearn")


def test_evaluate_input_scores_a_bm25_model_as_its_search_does(corpus_files, tmp_path):
    """A model that is BM25 (a fit that ended as the baseline), fitted on other texts, scores the
    evaluated documents as its search does, with their own vocabulary and statistics: its column
    is then evaluate's own BM25 column (it scored below it with the fit's vocabulary and idf)."""
    from learnsim._baseline_models import baseline_pipeline

    other = make_clustered_corpus(n_clusters=4, docs_per_cluster=6, random_state=11).data
    path = tmp_path / "bm25.npz"
    baseline_pipeline("bm25", other).save(path)
    code, out, err = run_cli(["evaluate", "--model", path, "--input", corpus_files["test"], "--json"])
    assert code == 0, err
    methods = json.loads(out)["methods"]
    for m in ("ap11", "map", "p@10"):
        assert methods["learned"][m] == pytest.approx(methods["bm25"][m], abs=1e-9), m

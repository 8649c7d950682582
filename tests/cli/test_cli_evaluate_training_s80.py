"""'learnsim evaluate' says when it measures a model on the texts it was fitted on: a new user ran
it on the very notes the model was fitted on and got learned 1.000 (1.19x the strongest baseline)
without a word. Each input form counts the queries (and texts) the model's fingerprint holds; one
note on stderr where any, and "seen_in_training" in --json; nothing where none; a model file from
before the fingerprint evaluates as before (no note, "seen_in_training": null)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conftest import run_cli
from learnsim.datasets import make_clustered_corpus

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NOTE = "the model was fitted on: these figures measure what it remembers"


def ok(args):
    code, out, err = run_cli(args)
    assert code == 0, err
    return out, err


def _notes(err):
    return [line for line in err.splitlines() if NOTE in line]


@pytest.fixture(scope="module")
def tickets_model(tmp_path_factory):
    model = tmp_path_factory.mktemp("fingerprint") / "tickets.npz"
    ok(["fit", "--input", EXAMPLES / "tickets.jsonl", "--model", model, "--baseline-holdout", "none"])
    return model


@pytest.fixture(scope="module")
def old_model(tickets_model, tmp_path_factory):
    """The same model, saved as learnsim wrote it before the fingerprint (its parts without it)."""
    from learnsim.persistence import save
    from learnsim.pipeline import Pipeline

    parts = Pipeline.load(tickets_model).parts
    assert "training" in parts
    path = tmp_path_factory.mktemp("old") / "old.npz"
    save({name: part for name, part in parts.items() if name != "training"}, path)
    return path


def _tickets():
    return [json.loads(line) for line in (EXAMPLES / "tickets.jsonl").read_text(encoding="utf-8").splitlines()]


def _queries_of(rows, tmp_path, name):
    """queries.jsonl and qrels.tsv of ``rows`` as queries, each judging the other tickets of its label."""
    tickets = _tickets()
    queries, qrels = tmp_path / f"{name}.jsonl", tmp_path / f"{name}-qrels.tsv"
    queries.write_text("".join(json.dumps({"_id": f"q{i}", "text": r["text"]}) + "\n" for i, r in enumerate(rows)),
                       encoding="utf-8")
    qrels.write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"q{i}\t{t['id']}\t1\n" for i, r in enumerate(rows) for t in tickets
        if t["label"] == r["label"] and t["text"] != r["text"]), encoding="utf-8")
    return queries, qrels


def test_evaluating_on_the_fit_s_own_documents_says_so(tickets_model):
    out, err = ok(["evaluate", "--model", tickets_model, "--input", EXAMPLES / "tickets.jsonl"])
    notes = _notes(err)
    assert len(notes) == 1 and "120 of the 120 queries are texts" in notes[0]
    assert "not how it searches new queries" in notes[0]
    assert "Leave-one-out retrieval" in out
    out, err = ok(["evaluate", "--model", tickets_model, "--input", EXAMPLES / "tickets.jsonl", "--json"])
    seen = json.loads(out)["seen_in_training"]
    assert seen["queries"] == {"seen": 120, "of": 120} and seen["documents"] == {"seen": 120, "of": 120}
    assert len(_notes(err)) == 1


def test_new_queries_get_no_note(tickets_model, tmp_path):
    out, err = ok(["evaluate", "--model", tickets_model, "--queries", EXAMPLES / "queries.jsonl", "--qrels",
                   EXAMPLES / "qrels-test.tsv", "--corpus", EXAMPLES / "tickets.jsonl", "--json"])
    assert _notes(err) == []
    assert json.loads(out)["seen_in_training"] == {"queries": {"seen": 0, "of": 10}}


def test_training_texts_as_queries_are_counted_whatever_their_case_and_spacing(tickets_model, tmp_path):
    rows = _tickets()
    # 7 training tickets, re-typed (upper case, spaces doubled), and 3 questions no fit saw
    typed = [dict(r, text="  " + r["text"].upper().replace(" ", "  ")) for r in rows[:40:6]]
    new = [dict(rows[0], text="does the warranty cover a cracked screen"),
           dict(rows[50], text="my parcel went to my old flat"),
           dict(rows[90], text="the app logs me out every hour")]
    queries, qrels = _queries_of(typed + new, tmp_path, "mixed")
    out, err = ok(["evaluate", "--model", tickets_model, "--queries", queries, "--qrels", qrels, "--corpus",
                   EXAMPLES / "tickets.jsonl", "--json"])
    notes = _notes(err)
    assert len(notes) == 1 and "7 of the 10 queries are texts" in notes[0]
    assert json.loads(out)["seen_in_training"] == {"queries": {"seen": 7, "of": 10}}


def test_an_index_s_model_says_so_too(tickets_model, tmp_path):
    ok(["index", "build", "--model", tickets_model, "--corpus", EXAMPLES / "tickets.jsonl", "--out",
        tmp_path / "idx"])
    queries, qrels = _queries_of(_tickets()[:5], tmp_path, "own")
    _, err = ok(["evaluate", "--index", tmp_path / "idx", "--queries", queries, "--qrels", qrels])
    notes = _notes(err)
    assert len(notes) == 1 and "5 of the 5 queries are texts" in notes[0]


def test_an_old_model_file_evaluates_without_a_note(old_model):
    out, err = ok(["evaluate", "--model", old_model, "--input", EXAMPLES / "tickets.jsonl", "--json"])
    assert _notes(err) == [] and json.loads(out)["seen_in_training"] is None
    _, err = ok(["evaluate", "--model", old_model, "--input", EXAMPLES / "tickets.jsonl"])
    assert _notes(err) == []


def test_pairs_count_their_texts(tmp_path):
    model = tmp_path / "pairs.npz"
    ok(["fit", "--method", "film", "--pairs", EXAMPLES / "pairs.tsv", "--model", model, "--baseline-holdout", "none"])
    out, err = ok(["evaluate", "--model", model, "--pairs", EXAMPLES / "pairs.tsv", "--json"])
    seen = json.loads(out)["seen_in_training"]["texts"]
    assert seen["seen"] == seen["of"] > 0
    notes = _notes(err)
    assert len(notes) == 1 and f"{seen['of']} of the {seen['of']} texts of the pairs" in notes[0]
    assert "not how it judges new pairs" in notes[0]
    fresh = tmp_path / "fresh.tsv"
    fresh.write_text("label\ttext_a\ttext_b\n1\tthe kettle will not boil\tmy kettle does not heat water\n"
                     "0\tthe kettle will not boil\thow do I change my password\n"
                     "1\tparcel sent to the wrong flat\tmy order went to an old address\n"
                     "0\tparcel sent to the wrong flat\tcancel my subscription\n", encoding="utf-8")
    out, err = ok(["evaluate", "--model", model, "--pairs", fresh, "--json"])
    assert _notes(err) == [] and json.loads(out)["seen_in_training"] == {"texts": {"seen": 0, "of": 6}}


def test_links_count_their_documents(tmp_path):
    corpus = make_clustered_corpus(n_clusters=4, docs_per_cluster=10, random_state=3)
    pages, links = tmp_path / "pages.tsv", tmp_path / "links.tsv"
    pages.write_text("".join(f"p{i}\t{t}\n" for i, t in enumerate(corpus.data)), encoding="utf-8")
    rng = np.random.default_rng(0)
    edges = {(i, int(j)) for i in range(len(corpus.data))
             for j in rng.choice(np.flatnonzero(corpus.target == corpus.target[i]), 3) if i != j}
    links.write_text("".join(f"p{a}\tp{b}\n" for a, b in sorted(edges)), encoding="utf-8")
    model = tmp_path / "ll.npz"
    ok(["fit", "--method", "linklearn", "--input", pages, "--links", links, "--model", model, "--max-iter", "500",
        "--baseline-holdout", "none"])
    out, err = ok(["evaluate", "--model", model, "--input", pages, "--links", links, "--json"])
    seen = json.loads(out)["seen_in_training"]
    assert seen["documents"] == {"seen": len(corpus.data), "of": len(corpus.data)}
    assert len(_notes(err)) == 1


def test_graded_pairs_count_their_texts(tmp_path):
    corpus = make_clustered_corpus(n_clusters=4, docs_per_cluster=10, random_state=5)
    rng = np.random.default_rng(5)
    rows = []
    for k in range(80):
        i, j = (int(v) for v in rng.choice(len(corpus.data), 2, replace=False))
        rows.append(f"{4.0 if corpus.target[i] == corpus.target[j] else 1.0 + k % 3 * 0.3}\t"
                    f"{corpus.data[i]}\t{corpus.data[j]}\n")
    train = tmp_path / "graded.tsv"
    train.write_text("score\ttext_a\ttext_b\n" + "".join(rows), encoding="utf-8")
    model = tmp_path / "graded.npz"
    ok(["fit", "--method", "film", "--pairs", train, "--model", model, "--dimensions", "4", "--max-iter", "20",
        "--baseline-holdout", "none"])
    out, err = ok(["evaluate", "--model", model, "--pairs", train, "--json"])
    report = json.loads(out)
    assert report["graded"] is True
    seen = report["seen_in_training"]["texts"]
    assert seen["seen"] == seen["of"] > 0 and len(_notes(err)) == 1


def test_a_sampled_fingerprint_says_its_count_is_an_estimate(monkeypatch, capsys):
    from types import SimpleNamespace

    from learnsim import _training
    from learnsim.cli._seen import seen_in_training

    monkeypatch.setattr(_training, "MAX_KEYS", 50)
    fitted = [f"ticket {i}: the printer jams on page two" for i in range(1000)]
    model = SimpleNamespace(training=_training.TrainingTexts.of(fitted))
    counts = seen_in_training(model, "queries", queries=fitted[:300])
    err = capsys.readouterr().err
    assert counts["queries"]["estimated"] is True and 100 <= counts["queries"]["seen"] <= 300
    assert f"about {counts['queries']['seen']} of the 300 queries" in err
    assert "estimated from the sampled fingerprint of its 1,000 training texts" in err
    assert seen_in_training(model, "queries", queries=["a question no fit saw"])["queries"]["seen"] == 0
    assert capsys.readouterr().err == ""

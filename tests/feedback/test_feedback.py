"""learnsim.feedback: the click log (records, bounds, retention, purge, pseudonymous clients),
the comparisons drawn from it (click > skip above, click > next below, cancelling, per-client
caps), and the command line (learnsim feedback, fit --method relative --clicks-from)."""
from __future__ import annotations

import functools

import json
import random
import sqlite3
import time

import numpy as np
import pytest

from index_models import corpus, model

from learnsim.cli import main
from learnsim.feedback import FEEDBACK_FILE, FeedbackLog, click_comparisons
from learnsim.index import Index


def test_records_round_trip_and_are_bounded(tmp_path):
    with FeedbackLog(tmp_path) as log:
        imp = log.record_impression("reset password", ["d3", "d7", 12], model="v1", client="10.0.0.5")
        assert log.record_clicks(imp, ["d7", "12"], dwell=3.5) == 2
        with pytest.raises(KeyError, match="no impression"):
            log.record_clicks("nope", ["d7"])
        with pytest.raises(ValueError, match="not shown"):
            log.record_clicks(imp, ["d9"])
        with pytest.raises(ValueError, match="'d3' more than once"):
            log.record_clicks(imp, ["d3", "12", "d3"])
        for bad in ("", " ", "x" * 10_001):
            with pytest.raises(ValueError, match="query"):
                log.record_impression(bad, ["d1"])
        for shown in (["a", "a"], [str(i) for i in range(1001)], [True], [1.5]):
            with pytest.raises(ValueError):
                log.record_impression("q", shown)
        with pytest.raises(ValueError, match="dwell"):
            log.record_clicks(imp, ["d3"], dwell=-1)
        (got,) = list(log.impressions())
        assert got["query"] == "reset password" and got["shown"] == ["d3", "d7", "12"] and got["model"] == "v1"
        assert [(c["doc_id"], c["position"], c["dwell"]) for c in got["clicks"]] == [("d7", 2, 3.5), ("12", 3, 3.5)]
        # the client's address is not stored, only a keyed pseudonym (the same for the same client)
        assert got["client"] == log.pseudonym("10.0.0.5") != "10.0.0.5" and len(got["client"]) == 16
    raw = (tmp_path / FEEDBACK_FILE).read_bytes()
    assert b"10.0.0.5" not in raw
    with sqlite3.connect(tmp_path / FEEDBACK_FILE) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_retention_by_age_and_rows(tmp_path):
    with FeedbackLog(tmp_path) as log:
        old = log.record_impression("old", ["a", "b"], now=time.time() - 3 * 86400)
        log.record_clicks(old, ["b"])
    log = FeedbackLog(tmp_path, max_days=1, max_rows=50)
    for i in range(260):
        log.record_impression(f"q{i}", ["a", "b"])
    stats = log.stats()
    assert stats["impressions"] <= 50 + 100 and stats["clicks"] == 0      # the old one went, clicks with it
    assert "old" not in {imp["query"] for imp in log.impressions()}
    assert log.purge(older_than_days=0) == stats["impressions"] and log.stats()["impressions"] == 0
    with pytest.raises(ValueError):
        FeedbackLog(tmp_path, max_rows=0)


def test_a_log_in_a_folder_whose_name_holds_a_uri_escape_is_read_there(tmp_path):
    # the read-only open goes through an SQLite URI, which decodes %XX: "logs%41" was read as
    # "logsA": another path, and the log there was refused as unopenable
    for name in ("logs%41", "100%25 done", "what?#"):
        folder = tmp_path / name
        folder.mkdir()
        with FeedbackLog(folder) as log:
            log.record_impression(f"query in {name}", ["d1", "d2"])
        with FeedbackLog(folder, readonly=True) as log:
            assert [imp["query"] for imp in log.impressions()] == [f"query in {name}"]


def test_a_file_that_is_not_a_log_is_refused(tmp_path):
    bad = tmp_path / "x.sqlite"
    bad.write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(ValueError, match="not a learnsim feedback log"):
        FeedbackLog(bad, readonly=True)
    with pytest.raises(FileNotFoundError):
        FeedbackLog(tmp_path / "none.sqlite", readonly=True)


def _imp(query, shown, clicked, client="c"):
    return {"query": query, "shown": shown, "clicks": [{"doc_id": d} for d in clicked], "client": client}


def test_comparisons_follow_joachims_and_cancel():
    joachims = functools.partial(click_comparisons, position_bias="joachims")
    rows = joachims([_imp("q", ["a", "b", "c", "d", "e"], ["c", "e"])], max_client_share=1.0)
    # c over a and b (skipped above), c over d (next below); e over a, b, d; nothing for a clicked pair
    assert sorted(rows) == sorted([("q", "c", "a"), ("q", "c", "b"), ("q", "c", "d"),
                                   ("q", "e", "a"), ("q", "e", "b"), ("q", "e", "d")])
    assert joachims([_imp("q", ["a", "b", "c"], ["c"])], next_below=False, max_client_share=1.0) == \
        [("q", "c", "a"), ("q", "c", "b")]
    # a click on the first result says nothing of those below but the next
    assert joachims([_imp("q", ["a", "b", "c"], ["a"])], max_client_share=1.0) == [("q", "a", "b")]
    # opposite evidence for one query cancels pair for pair
    both = [_imp("q", ["a", "b"], ["b"]), _imp("q", ["b", "a"], ["a"]), _imp("q", ["a", "b"], ["b"])]
    assert joachims(both, next_below=False, max_client_share=1.0) == [("q", "b", "a")]
    assert joachims([_imp("q", ["a"], [])]) == []
    assert click_comparisons([_imp("q", ["a"], [])]) == []


def test_inverse_propensity_comparisons():
    # a kept click is compared with every result not clicked, above and below it
    rows = click_comparisons([_imp("q", ["a", "b", "c", "d", "e"], ["c", "e"])], propensity_clip=1,
                             max_client_share=1.0)
    assert sorted(rows) == sorted([("q", "c", "a"), ("q", "c", "b"), ("q", "c", "d"),
                                   ("q", "e", "a"), ("q", "e", "b"), ("q", "e", "d")])
    # a click at rank r keeps its comparisons with probability (r / clip)^eta: 2/10, and 0.04 for eta 2
    log = [_imp(f"q{i}", list("abcdefghij"), ["b"], client=f"u{i}") for i in range(4000)]
    for eta, expected in ((1.0, 0.2), (2.0, 0.04)):
        kept = len(click_comparisons(log, eta=eta, max_client_share=1.0)) / 9
        assert abs(kept / 4000 - expected) < 4 * np.sqrt(expected * (1 - expected) / 4000)
    # past the clip every click keeps its comparisons; the sample is seeded
    assert len(click_comparisons(log, propensity_clip=2, max_client_share=1.0)) == 9 * 4000
    assert click_comparisons(log) == click_comparisons(log)
    for bad in ({"position_bias": "cascade"}, {"eta": 0}, {"eta": float("nan")}, {"eta": True},
                {"propensity_clip": 0}, {"propensity_clip": 2.5}):
        with pytest.raises(ValueError):
            click_comparisons(log[:1], **bad)


@pytest.mark.parametrize("position_bias", ["joachims", "ipw"])
def test_one_client_cannot_dominate(position_bias):
    compare = functools.partial(click_comparisons, position_bias=position_bias, propensity_clip=3)
    honest = [_imp(f"q{i}", ["a", "b", "c"], ["c"], client=f"user{i}") for i in range(100)]
    flood = [_imp("spam", ["a", "b", "c"], ["c"], client="bot") for _ in range(5000)]
    rows = compare(honest + flood, max_client_share=0.1)
    spam = sum(r[0] == "spam" for r in rows)
    assert spam <= 0.1 * len(rows) + 1 and len(rows) - spam == 2 * len(honest)
    assert compare(honest + flood, max_client_share=1.0).count(("spam", "c", "a")) == 5000
    # without a flood nothing is dropped
    assert len(compare(honest, max_client_share=0.1)) == 2 * len(honest)


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """An index of the test corpus and a click log of simulated users who click a result of the
    query's topic below the ones of other topics."""
    texts, topics, ids, meta = corpus()
    root = tmp_path_factory.mktemp("clicks")
    path = root / "idx"
    Index.build(path, model("linklearn"), texts, ids, meta).close()
    rng = random.Random(0)
    with Index.open(path) as index, FeedbackLog(path) as log:
        for n in range(120):
            i = rng.randrange(len(texts))
            query = " ".join(texts[i].split()[:6])
            hits = index.search(query, k=10)
            imp = log.record_impression(query, [h["id"] for h in hits], client=f"user{n % 7}")
            want = [h["id"] for h in hits if topics[ids.index(h["id"])] == topics[i]]
            if want:
                log.record_clicks(imp, want[-1:])
    return path


def test_the_command_line_reports_exports_and_purges(logged, tmp_path, capsys):
    assert main(["feedback", "stats", str(logged), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["impressions"] == 120 and stats["clicks"] > 0 and stats["clients"] == 7
    out = tmp_path / "clicks.tsv"
    assert main(["feedback", "export", str(logged), "--comparisons", "--out", str(out)]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "query\tclicked\tskipped" and len(lines) > 10 and all(len(x.split("\t")) == 3 for x in lines)
    assert main(["feedback", "export", str(logged)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 120
    assert main(["feedback", "purge", str(logged)]) == 2                    # neither --older-than nor --all
    assert main(["feedback", "stats", str(tmp_path)]) == 2                  # no log there
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("error" in e for e in err)


def test_fit_learns_from_the_index_click_log(logged, tmp_path, capsys):
    out = tmp_path / "rel.npz"
    assert main(["fit", "--method", "relative", "--clicks-from", str(logged), "--model", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["supervision"] == "clicks" and report["triplets"] > 10
    assert out.exists()
    assert main(["fit", "--method", "relative", "--clicks-from", str(tmp_path), "--model", str(out)]) == 2


def test_a_click_log_is_judgements_for_film(logged, tmp_path, capsys):
    """The same log as relevance judgements (issue 43): each query's clicked documents relevant,
    the skipped ones not, under the comparisons' position-bias handling and client cap."""
    from learnsim.feedback import click_comparisons, click_judgements

    with FeedbackLog(logged) as log:
        impressions = list(log.impressions(with_clicks_only=True))
    queries, qrels = click_judgements(impressions)
    rows = click_comparisons(impressions)
    assert set(queries.values()) == {q for q, _, _ in rows}
    for qid, judged in qrels.items():
        clicked = {c for q, c, _ in rows if q == queries[qid]}
        assert {d for d, g in judged.items() if g == 1} == clicked
        assert all(g in (0, 1) for g in judged.values())
    out = tmp_path / "film.npz"
    assert main(["fit", "--method", "film", "--clicks-from", str(logged), "--model", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    report = report.get("report", report)
    assert report["judgements"]["queries"] == len(qrels) and report["corpus"] > 0
    assert out.exists()


def test_clicks_all_on_one_document_fit_and_are_checked(tmp_path, capsys):
    """Every click on one document (the same result chosen for every query): the check keeps
    that document in training (holding it out would leave no relevant pair) and the fit ends
    with the model or the baseline it fell back to, not an error about empty documents."""
    texts, topics, ids, meta = corpus()
    path = tmp_path / "idx"
    Index.build(path, model("linklearn"), texts, ids, meta).close()
    query = " ".join(texts[0].split()[:6])
    with Index.open(path) as index, FeedbackLog(path) as log:
        hits = [h["id"] for h in index.search(query, k=10)]
        assert ids[0] in hits
        for n in range(12):
            log.record_clicks(log.record_impression(f"{query} {n}", hits, client=f"user{n}"), [ids[0]])
    for method in ("film", "mcd"):
        out = tmp_path / f"{method}.npz"
        assert main(["fit", "--method", method, "--clicks-from", str(path), "--model", str(out), "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert out.exists() and "empty" not in json.dumps(report)


def test_impressions_written_together_are_all_or_nothing(tmp_path):
    log = FeedbackLog(tmp_path)
    ids = log.record_impressions([("q1", ["a", "b"], "v1", "c1", None), ("q2", ["b"], "v1|v2", "c2", ["c"])])
    assert len(set(ids)) == 2
    with pytest.raises(ValueError):
        log.record_impressions([("q3", ["a"], None, None, None), ("  ", ["a"], None, None, None)])
    logged = list(log.impressions())
    assert [i["query"] for i in logged] == ["q1", "q2"] and logged[1]["teams"] == ["c"]
    log.close()


def test_fit_clicks_from_impressions_checks_on_held_out_searches(logged):
    """The log's own path: comparisons with inverse propensity weights, C and the check against
    W = 1 on every query's searches held out once; the vocabulary is the collection's."""
    from learnsim.feedback import fit_clicks

    with Index.open(logged) as index, FeedbackLog(logged, readonly=True) as log:
        ids, texts = index.live_documents()
        impressions = list(log.impressions(with_clicks_only=True))
    result = fit_clicks(ids, texts, impressions=impressions, show_progress_bar=False)
    report = result.report
    assert report["validation_measure"].startswith("click DCG of held-out searches")
    assert 0 < report["validation_queries"] <= len({i["query"] for i in impressions})
    assert report["validation_searches"] >= report["validation_queries"]
    assert report["baseline_gain"]["detail"]["folds"] == 4
    assert set(report["validation_accuracy_by_C"]) >= {report["C"]}
    # the vocabulary and idf come from the documents alone: the query texts are only anchors
    vocabulary = result.pipeline.vectorizer.vocabulary_
    only_in_queries = {w for i in impressions for w in i["query"].split()} - {w for t in texts for w in t.split()}
    assert not only_in_queries & set(vocabulary)
    # seeded: the same log gives the same model
    again = fit_clicks(ids, texts, impressions=impressions, show_progress_bar=False)
    assert again.report["C"] == report["C"] and again.report["model"] == report["model"]
    with pytest.raises(TypeError, match="one of the two"):
        fit_clicks(ids, texts)
    with pytest.raises(TypeError, match="one of the two"):
        fit_clicks(ids, texts, [("q", ids[0], ids[1])], impressions=impressions)
    with pytest.raises(ValueError, match="differ in length"):
        fit_clicks(ids[:-1], texts, impressions=impressions)


def test_held_out_searches_tell_a_better_ranking_from_the_cosine():
    """Queries of one topic word and one word every topic shares, served by the tf-idf cosine;
    users click the topic's documents, seen with probability 1 / rank. The held-out searches find
    the learned weighting (the shared words weighed down) clearly better than W = 1, and it is:
    more of the topic's documents in the top 10 of new queries."""
    from learnsim.feedback import fit_clicks
    from learnsim.text import TextVectorizer

    rng = np.random.default_rng(0)
    topics = ("alpha", "beta", "gamma", "delta")
    words = {t: [f"{t}{k}" for k in range(10)] for t in topics}
    shared = [f"other{k}" for k in range(40)]         # as frequent as a topic's words, in every topic
    ids, texts, topic = [], [], []
    for t in topics:
        for n in range(25):
            ids.append(f"{t}-{n}")
            topic.append(t)
            texts.append(" ".join(list(rng.choice(words[t], 3, replace=False))
                                  + list(rng.choice(shared, 3, replace=False))))
    vectorizer = TextVectorizer("tfidf", norm="l2").fit(texts)
    X = vectorizer.transform(texts)

    def query_of(n):
        t = topics[n % 4]
        return t, f"{rng.choice(words[t])} {rng.choice(shared)}"

    def top10(scores):
        return np.argsort(-np.asarray(scores).ravel(), kind="stable")[:10]

    impressions = []
    for n in range(1000):
        t, query = query_of(n)
        shown = [ids[i] for i in top10((X @ vectorizer.transform([query]).T).toarray())]
        clicks = [{"doc_id": d} for r, d in enumerate(shown)
                  if topic[ids.index(d)] == t and rng.random() < 0.9 / (r + 1)]
        impressions.append({"query": query, "shown": shown, "clicks": clicks, "client": f"u{n % 50}"})
    result = fit_clicks(ids, texts, impressions=impressions, show_progress_bar=False)
    report = result.report
    assert report["model"] == "learned" and report["baseline_gain"]["ci_low"] > 0, report["baseline_gain"]
    assert report["validation_accuracy_baseline"] < report["validation_accuracy_by_C"][report["C"]]
    searcher = result.pipeline.searcher(texts)
    learned = cosine = 0
    for n in range(200):
        t, query = query_of(n)
        learned += sum(topic[i] == t for i in np.asarray(searcher.top_k([query], 10)[0])[0])
        cosine += sum(topic[i] == t for i in top10((X @ vectorizer.transform([query]).T).toarray()))
    assert learned > 1.1 * cosine, (learned, cosine)


@pytest.mark.parametrize("impressions, names", [
    (None, "list of dicts"), ("abc", "list of dicts"), (["junk"], r"impressions\[0\] must be a dict"),
    ([{"query": 5, "shown": ["a"], "clicks": []}], r"\['query'\]"),
    ([{"query": "q", "shown": "ab", "clicks": [{"doc_id": "b"}]}], r"\['shown'\]"),
    ([{"query": "q", "shown": ["a", 7], "clicks": []}], r"\['shown'\]"),
    ([{"query": "q", "shown": ["a", "b"]}], r"\['clicks'\]"),
    ([{"query": "q", "shown": ["a", "b"], "clicks": ["b"]}], r"\['clicks'\]"),
])
def test_a_malformed_search_is_named(impressions, names):
    from learnsim.feedback import fit_clicks

    with pytest.raises(TypeError, match=names):
        click_comparisons(impressions)
    if impressions is not None:
        with pytest.raises(TypeError, match=names):
            fit_clicks(["a", "b"], ["x y", "y z"], impressions=impressions)

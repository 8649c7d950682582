"""learnsim.feedback: the click log (records, bounds, retention, purge, pseudonymous clients),
the comparisons drawn from it (click > skip above, click > next below, cancelling, per-client
caps), and the command line (learnsim feedback, fit --method relative --clicks-from)."""
from __future__ import annotations

import json
import random
import sqlite3
import time

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
    rows = click_comparisons([_imp("q", ["a", "b", "c", "d", "e"], ["c", "e"])], max_client_share=1.0)
    # c over a and b (skipped above), c over d (next below); e over a, b, d; nothing for a clicked pair
    assert sorted(rows) == sorted([("q", "c", "a"), ("q", "c", "b"), ("q", "c", "d"),
                                   ("q", "e", "a"), ("q", "e", "b"), ("q", "e", "d")])
    assert click_comparisons([_imp("q", ["a", "b", "c"], ["c"])], next_below=False, max_client_share=1.0) == \
        [("q", "c", "a"), ("q", "c", "b")]
    # a click on the first result says nothing of those below but the next
    assert click_comparisons([_imp("q", ["a", "b", "c"], ["a"])], max_client_share=1.0) == [("q", "a", "b")]
    # opposite evidence for one query cancels pair for pair
    both = [_imp("q", ["a", "b"], ["b"]), _imp("q", ["b", "a"], ["a"]), _imp("q", ["a", "b"], ["b"])]
    assert click_comparisons(both, next_below=False, max_client_share=1.0) == [("q", "b", "a")]
    assert click_comparisons([_imp("q", ["a"], [])]) == []


def test_one_client_cannot_dominate():
    honest = [_imp(f"q{i}", ["a", "b", "c"], ["c"], client=f"user{i}") for i in range(100)]
    flood = [_imp("spam", ["a", "b", "c"], ["c"], client="bot") for _ in range(5000)]
    rows = click_comparisons(honest + flood, max_client_share=0.1)
    spam = sum(r[0] == "spam" for r in rows)
    assert spam <= 0.1 * len(rows) + 1 and len(rows) - spam == 2 * len(honest)
    assert click_comparisons(honest + flood, max_client_share=1.0).count(("spam", "c", "a")) == 5000
    # without a flood nothing is dropped
    assert len(click_comparisons(honest, max_client_share=0.1)) == 2 * len(honest)


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
    assert main(["fit", "--method", "film", "--clicks-from", str(logged), "--model", str(out)]) == 2


def test_impressions_written_together_are_all_or_nothing(tmp_path):
    log = FeedbackLog(tmp_path)
    ids = log.record_impressions([("q1", ["a", "b"], "v1", "c1", None), ("q2", ["b"], "v1|v2", "c2", ["c"])])
    assert len(set(ids)) == 2
    with pytest.raises(ValueError):
        log.record_impressions([("q3", ["a"], None, None, None), ("  ", ["a"], None, None, None)])
    logged = list(log.impressions())
    assert [i["query"] for i in logged] == ["q1", "q2"] and logged[1]["teams"] == ["c"]
    log.close()

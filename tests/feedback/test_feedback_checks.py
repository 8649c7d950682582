"""What the Python API of learnsim.feedback refuses, as the HTTP API and the command line do, and
what ``learnsim feedback export --comparisons`` writes (attack sweep s69, cases 4, 6 and 7):

- a click's dwell or relevance that is not finite, or past the HTTP API's bounds, is a ValueError
  and nothing is written (an infinite dwell was acknowledged, and every read of the log then
  refused its row: export, fit --clicks-from and promote exited 2);
- the comparisons export writes ids verbatim ("doc  7" had become "doc 7", another document),
  and refuses an id its layout cannot hold, so that ``fit --clicks`` reads back what was logged;
- interleaving_verdict and promotion_evidence take the confidence and min_clients that
  ``learnsim index promote`` takes (a confidence of 0 or -1 and min_clients 0 had said "better").
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from learnsim.cli import main
from learnsim.cli._fit_relative import read_triplet_rows
from learnsim.feedback import FeedbackLog, click_comparisons, interleaving_verdict, promotion_evidence
from learnsim.feedback._log import MAX_DWELL, MAX_RELEVANCE


# --------------------------------------------------------------------------- dwell and relevance
@pytest.mark.parametrize("name, value", [
    ("dwell", math.inf), ("dwell", -math.inf), ("dwell", math.nan), ("dwell", -1.0), ("dwell", 1e7 * 2),
    ("dwell", 1e999), ("dwell", "5"), ("dwell", True), ("relevance", math.inf), ("relevance", math.nan),
    ("relevance", 1001.0), ("relevance", -0.5)])
def test_a_click_out_of_bounds_is_refused_and_nothing_is_written(tmp_path, name, value):
    with FeedbackLog(tmp_path) as log:
        imp = log.record_impression("reset password", ["d1", "d2"], client="10.0.0.5")
        with pytest.raises(ValueError, match=name) as caught:
            log.record_clicks(imp, ["d1"], **{name: value})
        assert "\n" not in str(caught.value)
        (got,) = list(log.impressions())              # the log is still readable, and holds no click
        assert got["clicks"] == [] and log.stats()["clicks"] == 0


def test_a_click_within_the_bounds_is_taken(tmp_path):
    with FeedbackLog(tmp_path) as log:
        imp = log.record_impression("reset password", ["d1", "d2", "d3"])
        assert log.record_clicks(imp, ["d1"], dwell=MAX_DWELL, relevance=MAX_RELEVANCE) == 1
        assert log.record_clicks(imp, ["d2"], dwell=0, relevance=0) == 1
        assert log.record_clicks(imp, ["d3"], dwell=np.float32(2.5), relevance=np.int64(3)) == 1
        (got,) = list(log.impressions())
    assert [(c["dwell"], c["relevance"]) for c in got["clicks"]] == [(1e7, 1e3), (0.0, 0.0), (2.5, 3.0)]
    assert (MAX_DWELL, MAX_RELEVANCE) == (1e7, 1e3)


# --------------------------------------------------------------------------- export --comparisons
def _clicked_log(path, ids, click):
    """A log of 3 searches showing 6 other ids then ``ids``, each with ``click`` clicked: at rank
    10 or below, its comparisons (against every id shown) are all kept by the inverse propensity
    sample."""
    shown = [f"f{i}" for i in range(6)] + list(ids)
    with FeedbackLog(path) as log:
        for i in range(3):
            imp = log.record_impression(f"refund  for\ta double   charge {i}", shown, client=f"user{i}")
            log.record_clicks(imp, [click])


def test_export_comparisons_keeps_ids_verbatim_and_fit_reads_them_back(tmp_path):
    ids = ["doc 7", "doc  7", "x y", "t001", "é  ü"]             # the clicked one at rank 11
    _clicked_log(tmp_path, ids, "é  ü")
    out = tmp_path / "clicks.tsv"
    assert main(["feedback", "export", str(tmp_path), "--comparisons", "--out", str(out)]) == 0
    with FeedbackLog(tmp_path, readonly=True) as log:
        want = click_comparisons(log.impressions(with_clicks_only=True))
    assert want and {c for _, c, _ in want} == {"é  ü"} and {"doc  7", "doc 7"} <= {s for _, _, s in want}
    rows = read_triplet_rows(out, "clicks", "strict")           # what 'learnsim fit --clicks' reads
    assert [fields[1:] for _, fields in rows] == [[c, s] for _, c, s in want]
    # the query is text: its whitespace collapsed
    assert [fields[0] for _, fields in rows] == [" ".join(q.split()) for q, _, _ in want]


@pytest.mark.parametrize("bad", ["tab\there", "line\nbreak", "cr\rhere", " lead", "trail ", "nbsp\u00a0"])
def test_export_comparisons_refuses_an_id_its_layout_cannot_hold(tmp_path, capsys, bad):
    _clicked_log(tmp_path, ["d1", bad, "d2", "d3", "d4"], "d4")
    out = tmp_path / "clicks.tsv"
    assert main(["feedback", "export", str(tmp_path), "--comparisons", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and repr(bad)[:20] in err and "--clicks-from" in err
    assert not out.exists()
    assert main(["feedback", "export", str(tmp_path)]) == 0      # the JSON lines hold any id


# --------------------------------------------------------------------------- confidence, min_clients
OUTCOMES = [1] * 11 + [-1] * 9          # no verdict at the CLI's confidences


@pytest.mark.parametrize("confidence", [0.0, -1.0, 0.3, 1.0, 1.5, math.nan, math.inf])
def test_interleaving_verdict_refuses_a_confidence_the_cli_refuses(confidence):
    with pytest.raises(ValueError, match=r"confidence must be a number in \[0.5, 1\)"):
        interleaving_verdict(OUTCOMES, confidence=confidence)


@pytest.mark.parametrize("confidence", ["0.95", None, True])
def test_a_confidence_that_is_no_number_is_a_type_error(confidence):
    with pytest.raises(TypeError, match="confidence"):
        interleaving_verdict(OUTCOMES, confidence=confidence)


@pytest.mark.parametrize("min_clients, error", [(0, ValueError), (-3, ValueError), (2.5, TypeError),
                                                (2.0, TypeError), ("5", TypeError), (True, TypeError)])
def test_interleaving_verdict_refuses_min_clients_the_cli_refuses(min_clients, error):
    with pytest.raises(error, match="min_clients must be a whole number >= 1"):
        interleaving_verdict(OUTCOMES, ["a"] * len(OUTCOMES), min_clients=min_clients)


def test_the_checked_arguments_still_give_verdicts():
    assert interleaving_verdict(OUTCOMES, confidence=0.5)["better"] is False
    assert interleaving_verdict([1] * 30, confidence=0.99)["better"] is True
    one = interleaving_verdict([1] * 30, ["a"] * 30, min_clients=np.int64(1))
    assert one["better"] is True
    assert interleaving_verdict([1] * 30, ["a"] * 30, min_clients=2)["better"] is False


@pytest.mark.parametrize("options, error", [({"confidence": 0.0}, ValueError), ({"confidence": -1.0}, ValueError),
                                            ({"min_clients": 0}, ValueError), ({"min_clients": 2.5}, TypeError)])
def test_promotion_evidence_refuses_them_before_reading_anything(options, error):
    class NoIndex:              # the arguments are checked first: nothing of the index is used
        def __getattr__(self, name):
            raise AssertionError(f"the index was used ({name}) before the arguments were checked")

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(error):
            promotion_evidence(NoIndex(), None, **options)

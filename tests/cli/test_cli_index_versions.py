"""``learnsim index versions | promote | rollback`` (issue 34, point 3): the table and --json,
promote --model and --version behind the evidence gate (refused with exit status 1 and one line
unless learnsim.feedback.promotion_evidence says the candidate is better, or --force), rollback,
and one-line user errors (exit status 2, no traceback).

The evidence function is replaced in each test (it is another part of issue 34's): one that says
better, one that says not, one that fails, and none at all.
"""
from __future__ import annotations

import json
import sys
import types

import pytest

from conftest import run_cli
from index_models import corpus, model

from learnsim.index import Index


def ok(args):
    code, out, err = run_cli(args)
    assert code == 0, (args, code, out, err)
    return out, err


def ok_json(args):
    return json.loads(ok(list(args) + ["--json"])[0])


def user_error(args, *fragments):
    """Exit status 2, one line on stderr naming ``fragments``, no traceback."""
    code, out, err = run_cli(args)
    assert code == 2, (args, code, out, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, f"expected a one-line message, got: {err!r}"
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    if "--json" in args:
        assert json.loads(out)["exit_code"] == 2
    else:
        assert out == ""
    return lines[0]


def refused(args, *fragments):
    """Exit status 1, one line on stderr saying why."""
    code, out, err = run_cli(args)
    assert code == 1, (args, code, out, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, f"expected a one-line message, got: {err!r}"
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0], out


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    folder = tmp_path_factory.mktemp("versions_models")
    out = {}
    for family in ("mcd", "relative"):
        out[family] = folder / f"{family}.npz"
        model(family).save(out[family])
    return out


@pytest.fixture
def index(tmp_path, models):
    texts, _, ids, meta = corpus()
    Index.build(tmp_path / "idx", models["mcd"], texts, ids, meta).close()
    return tmp_path / "idx"


def evidence(monkeypatch, result=None, error=None, missing=False):
    """Replace learnsim.feedback.promotion_evidence: returning ``result``, raising ``error``, or
    absent (``missing``); returns the list of the calls it got."""
    calls, confidences = [], []
    evidence.confidences = confidences
    if missing:
        monkeypatch.setitem(sys.modules, "learnsim.feedback", types.ModuleType("learnsim.feedback"))
        return calls
    import learnsim.feedback

    def promotion_evidence(index, candidate, candidate_version=None, confidence=0.95):
        calls.append((index.model_version, candidate))      # the served version when it compares
        confidences.append(confidence)
        if error is not None:
            raise error
        return result

    monkeypatch.setattr(learnsim.feedback, "promotion_evidence", promotion_evidence, raising=False)
    return calls


def test_versions_lists_the_build_as_served(index):
    out, _ = ok(["index", "versions", index])
    lines = out.splitlines()
    assert lines[0].split() == ["version", "status", "created", "source", "last", "comparison"]
    assert lines[2].split()[:2] == ["1", "served"] and "UTC" in lines[2]
    listed = ok_json(["index", "versions", index])
    assert listed["served"] == 1 and [v["status"] for v in listed["versions"]] == ["served"]
    assert ok_json(["index", "info", index])["model_version"] == 1


def test_promote_with_evidence_that_it_is_better_then_rollback(index, models, monkeypatch):
    calls = evidence(monkeypatch, {"better": True, "reason": "won 60% of interleaved comparisons", "wins": 60})
    out, _ = ok(["index", "promote", index, "--model", models["relative"]])
    assert "Promoted model version 2 (RelativeComparisonMetric) over version 1" in out
    (served, candidate), = calls
    assert served == 1 and type(candidate.metric).__name__ == "RelativeComparisonMetric"
    listed = ok_json(["index", "versions", index])
    assert listed["served"] == 2
    assert listed["versions"][1]["comparison"] == {"better": True, "reason": "won 60% of interleaved comparisons",
                                                   "wins": 60}
    assert listed["versions"][1]["source"] == str(models["relative"])
    table, _ = ok(["index", "versions", index])
    assert "better: won 60% of interleaved comparisons" in table
    assert Index.open(index).model_version == 2
    back = ok_json(["index", "rollback", index])
    assert (back["version"], back["previous"], back["action"]) == (1, 2, "rollback")
    assert [v["status"] for v in ok_json(["index", "versions", index])["versions"]] == ["served", "retired"]
    # a retired version again, by number
    result = ok_json(["index", "promote", index, "--version", "2"])
    assert result["promoted"] and result["version"] == 2
    out, _ = ok(["index", "rollback", index])
    assert "Rolled back to model version 1" in out
    user_error(["index", "rollback", index], "no earlier model version to roll back to")
    user_error(["index", "rollback", index, "--json"], "no earlier model version")


def test_promote_refused_without_evidence_that_it_is_better(index, models, monkeypatch):
    evidence(monkeypatch, {"better": False, "reason": "lost 12 of 20 interleaved comparisons"})
    refused(["index", "promote", index, "--model", models["relative"], "--confidence", "0.983"], "lost 12 of 20")
    assert evidence.confidences == [0.983]
    line, out = refused(["index", "promote", index, "--model", models["relative"]],
                        "refused to promote model version 2", "lost 12 of 20", "--force")
    assert out == ""
    listed = ok_json(["index", "versions", index])
    assert listed["served"] == 1 and listed["versions"][1]["status"] == "candidate"   # staged, not served
    # what the refused comparison found stays with the candidate
    assert listed["versions"][1]["comparison"] == {"better": False, "reason": "lost 12 of 20 interleaved comparisons"}
    _, out = refused(["index", "promote", index, "--version", "2", "--json"], "not better")
    assert json.loads(out)["promoted"] is False and json.loads(out)["exit_code"] == 1
    # --force promotes it, recording the evidence as forced
    ok(["index", "promote", index, "--version", "2", "--force"])
    v2 = ok_json(["index", "versions", index])["versions"][1]
    assert v2["status"] == "served"
    assert v2["comparison"] == {"forced": True, "better": False, "reason": "lost 12 of 20 interleaved comparisons"}
    table, _ = ok(["index", "versions", index])
    assert "forced: lost 12 of 20" in table


def test_promote_refused_when_there_is_no_evidence(index, models, monkeypatch):
    evidence(monkeypatch, missing=True)
    refused(["index", "promote", index, "--model", models["relative"]], "no promotion evidence", "--force")
    assert ok_json(["index", "versions", index])["served"] == 1
    result = ok_json(["index", "promote", index, "--version", "2", "--force"])
    assert result["comparison"]["forced"] is True and "no promotion evidence" in result["comparison"]["error"]


def test_promote_refused_when_the_comparison_cannot_be_made(index, models, monkeypatch):
    evidence(monkeypatch, error=ValueError("the index has logged no clicks"))
    refused(["index", "promote", index, "--model", models["relative"]], "no comparison could be made",
            "logged no clicks")
    result = ok_json(["index", "promote", index, "--model", models["relative"], "--force"])
    assert result["version"] == 2 and result["comparison"]["forced"] is True


def test_one_line_user_errors(index, models, tmp_path, monkeypatch):
    evidence(monkeypatch, {"better": True, "reason": "r"})
    user_error(["index", "promote", index, "--version", "9"], "no model version 9")
    user_error(["index", "promote", index, "--version", "1", "--force"], "already served")
    user_error(["index", "promote", index, "--version", "0"], "positive")
    for bad in ("1", "0.4", "nan", "x"):
        user_error(["index", "promote", index, "--model", models["relative"], "--confidence", bad], "[0.5, 1)")
    user_error(["index", "promote", index, "--model", models["mcd"]], "already served")
    user_error(["index", "promote", index, "--model", tmp_path / "missing.npz"], "missing.npz")
    (tmp_path / "bad.npz").write_bytes(b"PK\x03\x04 not a model")
    user_error(["index", "promote", index, "--model", tmp_path / "bad.npz", "--force"], "bad.npz")
    user_error(["index", "promote", index], "--model", "--version")
    user_error(["index", "promote", index, "--model", models["relative"], "--version", "1"], "not allowed")
    (tmp_path / "empty").mkdir()
    for action in (["versions"], ["rollback"], ["promote", "--version", "2"]):
        user_error(["index", action[0], tmp_path / "empty"] + action[1:], "holds no learnsim index")
        user_error(["index", action[0], tmp_path / "nowhere"] + action[1:], "does not exist")
    # damage: one line naming the file
    (index / "versions" / "versions.json").write_text("{}")
    user_error(["index", "versions", index], "versions.json", "damaged")
    user_error(["index", "promote", index, "--model", models["relative"], "--force"], "versions.json")
    user_error(["index", "rollback", index, "--json"], "versions.json")

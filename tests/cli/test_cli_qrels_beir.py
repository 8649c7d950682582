"""A BEIR folder whose parts are not as BEIR ships them: one line (exit 2) naming the part."""
import json

import pytest

from learnsim.cli import main


def _beir(root):
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps({"_id": f"d{i}", "title": "", "text": t}) + "\n" for i, t in
                                               enumerate(["bone density", "vitamin d", "heart rate"])), encoding="utf-8")
    (root / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "bone"}) + "\n", encoding="utf-8")
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td0\t1\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("part", ["qrels/test.tsv", "corpus.jsonl", "queries.jsonl"])
def test_a_part_that_is_a_folder_is_named_as_one(tmp_path, capsys, part):
    # qrels/test.tsv a folder was "no qrels/test.tsv or qrels/test.tsv.gz (its splits: test)":
    # no such split, and the split named beside it
    root = _beir(tmp_path / "beir")
    (root / part).unlink()
    (root / part).mkdir()
    rc = main(["evaluate", "--beir", str(root), "--split", "test"])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1, err
    assert f"{part} is a folder" in err and "its splits" not in err, err


def test_the_folder_as_shipped_is_measured(tmp_path, capsys):
    root = _beir(tmp_path / "beir")
    assert main(["evaluate", "--beir", str(root), "--split", "test", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["queries"] == 1

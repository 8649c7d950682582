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


_WORDS = ["bone density", "vitamin sunlight", "heart rhythm", "kidney stones", "liver enzymes", "lung capacity",
          "skin rash"]


def _numbered_beir(root):
    """Queries '2'..'7' and qrels naming '1'..'6', each k judging the document dk of query k's words:
    every number a position 1..6 of the queries, not every one an id."""
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps({"_id": f"d{k}", "title": "", "text": w}) + "\n"
                                               for k, w in enumerate(_WORDS, start=1)), encoding="utf-8")
    (root / "queries.jsonl").write_text("".join(json.dumps({"_id": str(k), "text": _WORDS[k - 1]}) + "\n"
                                                for k in range(2, 8)), encoding="utf-8")
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{k}\td{k}\t1\n" for k in range(1, 7)), encoding="utf-8")
    return root


def test_a_beir_folder_meets_its_queries_by_id_alone(tmp_path, capsys):
    # BEIR's loader meets a qrels query-id and a queries.jsonl _id by their text; read by position
    # (Cranfield's numbering), query '2' was measured on the judgements of '1', every query on its
    # neighbour's, behind a note that it was so numbered
    root = _numbered_beir(tmp_path / "beir")
    assert main(["evaluate", "--beir", str(root), "--split", "test", "--json"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["queries"] == 5 and "position" not in captured.err, captured.err
    assert report["methods"]["bm25"]["ndcg@10"] == pytest.approx(1.0)


def test_fit_on_a_beir_folder_meets_its_queries_by_id_alone(tmp_path, capsys):
    root = _numbered_beir(tmp_path / "beir")
    rc = main(["fit", "--beir", str(root), "--split", "test", "--model", str(tmp_path / "m.npz"), "--json"])
    captured = capsys.readouterr()
    assert rc == 0 and "position" not in captured.err, captured.err
    assert json.loads(captured.out)["judgements"]["unknown_query"] == 1


def test_fit_on_a_beir_folder_whose_judgements_meet_no_query_names_the_file(tmp_path, capsys):
    root = _numbered_beir(tmp_path / "beir")
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\td1\t1\n", encoding="utf-8")
    rc = main(["fit", "--beir", str(root), "--split", "test", "--model", str(tmp_path / "m.npz")])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith(f"learnsim fit: error: {root / 'qrels' / 'test.tsv'}: "), err

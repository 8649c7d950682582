"""learnsim fit on judgements none of which is relevant: one line saying so, not a question of ids."""
import json

import pytest

from learnsim.cli import main

_WORDS = ["bone density", "vitamin sunlight", "heart rhythm", "kidney stones"]


def _files(root, grades):
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps({"_id": f"d{k}", "title": "", "text": w}) + "\n"
                                               for k, w in enumerate(_WORDS)), encoding="utf-8")
    (root / "queries.jsonl").write_text("".join(json.dumps({"_id": f"q{k}", "text": w}) + "\n"
                                                for k, w in enumerate(_WORDS)), encoding="utf-8")
    (root / "qrels" / "train.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"q{k}\td{k}\t{g}\n" for k, g in enumerate(grades)), encoding="utf-8")
    return root


@pytest.mark.parametrize("how", ["--beir", "--qrels"])
def test_judgements_of_no_relevant_document_are_named_so(tmp_path, capsys, how):
    # "no judgement names a known query and a known document with a grade > 0 (relevant): 0 name an
    # unknown query, 0 an unknown document; do the files name queries and documents by the same
    # ids?": every id met, the question sent the user looking at the wrong thing
    root = _files(tmp_path / "beir", [0, -1, 0, -2])
    given = ["--beir", str(root)] if how == "--beir" else [
        "--qrels", str(root / "qrels" / "train.tsv"), "--queries", str(root / "queries.jsonl"),
        "--corpus", str(root / "corpus.jsonl")]
    rc = main(["fit", *given, "--model", str(tmp_path / "m.npz")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err[-1].startswith("learnsim fit: error: "), err
    assert "train.tsv" in err[-1] and "grade" in err[-1] and "same ids" not in err[-1], err[-1]

"""A judged query whose text is empty: refused naming it, as a blank query is refused by search.
It was fitted on as a text of no words, said only as "1 of 92 training documents are empty after
tokenisation" and "8 of 187 triplets use one of the 1 text(s) without a vocabulary term"."""
from __future__ import annotations

import pytest

from conftest import run_cli
from learnsim.supervision import judgements_from

CORPUS = {"d1": "how to reset a password", "d2": "refund a charge", "d3": "change the password"}


@pytest.mark.parametrize("blank", ["", "   ", "\t"])
def test_a_judged_query_of_no_text_is_refused_naming_it(blank):
    with pytest.raises(ValueError, match=r"queries\['q2'\]: the text is empty .*2 judgements name it"):
        judgements_from({"q1": "reset password", "q2": blank}, {"q1": {"d1": 1}, "q2": {"d2": 1, "d3": 0}}, CORPUS)


def test_a_blank_query_no_judgement_names_is_no_matter():
    texts, judgements, _, counts = judgements_from({"q1": "reset password", "q2": ""}, {"q1": {"d1": 1}}, CORPUS)
    assert texts[-1] == "reset password" and counts["queries"] == 1


def test_fit_beir_says_so_in_one_line(tmp_path):
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(f'{{"_id": "{k}", "text": "{v}"}}\n' for k, v in CORPUS.items()),
                                         encoding="utf-8")
    (folder / "queries.jsonl").write_text('{"_id": "q1", "text": "reset password"}\n{"_id": "q2", "text": ""}\n',
                                          encoding="utf-8")
    (folder / "qrels" / "train.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n", encoding="utf-8")
    code, out, err = run_cli(["fit", "--beir", folder, "--model", tmp_path / "m.npz"])
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err[-2000:]
    assert "'q2'" in err and "the text is empty" in err, err

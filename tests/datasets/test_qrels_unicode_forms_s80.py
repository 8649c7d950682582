"""Two ids that differ by Unicode normalisation alone (NFC 'caf\u00e9', NFD 'cafe\u0301') are one id
to learnsim's judgements, runs and collections (compared in NFC, as macOS file names and some
editors write the second): an error about them names both forms, written with escapes (they
print alike), and the line or record."""
import json

import pytest

from learnsim.datasets import read_qrels

NFC, NFD = "caf\u00e9", "cafe\u0301"


def test_a_pair_judged_twice_in_two_forms_names_both_and_the_lines(tmp_path):
    # was: "line 2: query 'q1', document 'café' judged again with level 2 (earlier 1)", one form
    # named where the file holds two that print alike
    path = tmp_path / "qrels.txt"
    path.write_text(f"q1 0 d0 1\nq1 0 {NFC} 1\nq1 0 {NFD} 2\n", encoding="utf-8")
    with pytest.raises(ValueError) as info:
        read_qrels(path)
    message = str(info.value)
    assert "line 3" in message and "line 2" in message and "\n" not in message
    assert ascii(NFC) in message and ascii(NFD) in message and "NFC" in message


def test_the_nfd_form_first_is_named_too(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text(f"q1 0 {NFD} 2\nq1 0 {NFC} 1\n", encoding="utf-8")
    with pytest.raises(ValueError) as info:
        read_qrels(path)
    message = str(info.value)
    assert "line 2" in message and "line 1" in message
    assert ascii(NFC) in message and ascii(NFD) in message


def test_two_forms_with_one_level_are_one_judgement(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text(f"q1 0 {NFC} 1\nq1 0 {NFD} 1\nq2 0 d2 1\n", encoding="utf-8")
    assert read_qrels(path) == {"q1": {NFC: 1}, "q2": {"d2": 1}}


def test_a_beir_corpus_with_both_forms_names_both_and_their_records(tmp_path):
    from learnsim.datasets.trec import read_id_texts
    path = tmp_path / "corpus.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for i, doc in enumerate(["d1", NFC, "d3", NFD]):
            f.write(json.dumps({"_id": doc, "title": "", "text": f"text {i}"}, ensure_ascii=False) + "\n")
    with pytest.raises(ValueError) as info:
        read_id_texts(path)
    message = str(info.value)
    assert ascii(NFC) in message and ascii(NFD) in message and "\n" not in message
    assert "records 2 and 4" in message

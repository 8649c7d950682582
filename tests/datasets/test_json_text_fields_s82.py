"""A JSON Lines pair whose text is null was read as an empty text without a word (``--input``
refuses a null text), and a JSTS line's null or number sentence became the text "None" or "5"
(str() of the value). Each reader of a text from JSON now refuses a text that is not a JSON
string, naming the line and the field."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli
from learnsim.datasets import load_jsts, read_pairs
from learnsim.datasets.trec import read_corpus

_GOOD = {"text_a": "alpha beta", "text_b": "gamma delta", "label": 1}
_VALUES = [None, 5, 2.5, True, ["x"], {"k": "v"}]


@pytest.mark.parametrize("field", ["text_a", "text_b"])
@pytest.mark.parametrize("value", _VALUES, ids=lambda v: type(v).__name__)
def test_pairs_jsonl_refuse_a_text_that_is_not_a_string(tmp_path, field, value):
    path = tmp_path / "pairs.jsonl"
    bad = dict(_GOOD, **{field: value})
    path.write_text(json.dumps(_GOOD) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"line 2: {field} must be text") as info:
        read_pairs(path)
    assert str(path) in str(info.value)


def test_pairs_jsonl_other_sentence_keys_too(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text(json.dumps({"sentence1": "a b", "sentence2": None, "score": 2.0}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 1: text_b must be text.*null"):
        read_pairs(path)


def test_a_python_list_of_dicts_keeps_none_as_a_missing_text():
    # a Python None (as a DataFrame's NaN) is a missing cell: an empty text, as before
    pairs = read_pairs([{"text_a": "a b", "text_b": None, "label": 1}, dict(_GOOD)])
    assert pairs.text_b.tolist() == ["", "gamma delta"]


def test_the_command_line_says_it_in_one_line(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text(json.dumps(_GOOD) + "\n" + json.dumps(dict(_GOOD, text_a=None)) + "\n", encoding="utf-8")
    code, out, err = run_cli(["fit", "--method", "film", "--pairs", str(path), "--model", str(tmp_path / "m.npz")])
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "line 2" in lines[0] and "text_a" in lines[0], err
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("field", ["sentence1", "sentence2"])
@pytest.mark.parametrize("value", _VALUES, ids=lambda v: type(v).__name__)
def test_jsts_refuses_a_sentence_that_is_not_a_string(tmp_path, field, value):
    folder = tmp_path / "ja" / "jsts"
    folder.mkdir(parents=True)
    good = {"sentence1": "x", "sentence2": "y", "label": 1}
    (folder / "train-v1.3.json").write_text(json.dumps(good) + "\n" + json.dumps(dict(good, **{field: value})) + "\n",
                                            encoding="utf-8")
    with pytest.raises(ValueError, match=rf"line 2: .*{field}"):
        load_jsts("train", data_dir=tmp_path)


@pytest.mark.parametrize("value", _VALUES, ids=lambda v: type(v).__name__)
def test_beir_corpus_refuses_a_text_that_is_not_a_string(tmp_path, value):
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps({"_id": "d0", "text": "a b"}) + "\n" + json.dumps({"_id": "d1", "text": value}) + "\n",
                    encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 2: .*text"):
        read_corpus(path)

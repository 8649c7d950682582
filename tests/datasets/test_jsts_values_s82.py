"""load_jsts on hostile values (found probing the JSON readers): a label of 400 digits raised
OverflowError (float() of it, outside the ValueError the reader turns into its message), a label
true read as the score 1.0, and a sentence_pair_id that is a list or an object became its str()
("[1]"). Each is refused naming the line and the key."""
from __future__ import annotations

import pytest

from learnsim.datasets import load_jsts

_GOOD = '{"sentence1": "x", "sentence2": "y", "label": 1, "sentence_pair_id": "0"}'


def _load(tmp_path, line):
    folder = tmp_path / "ja" / "jsts"
    folder.mkdir(parents=True)
    (folder / "train-v1.3.json").write_text(_GOOD + "\n" + line + "\n", encoding="utf-8")
    return load_jsts("train", data_dir=tmp_path)


@pytest.mark.parametrize("label, message", [("9" * 400, "outside"), ("true", "is not a number"),
                                            ("-" + "9" * 400, "outside"), ("1e400", "outside")])
def test_a_label_that_is_no_score_is_refused(tmp_path, label, message):
    with pytest.raises(ValueError, match=f"line 2: label .*{message}"):
        _load(tmp_path, '{"sentence1": "a", "sentence2": "b", "label": ' + label + '}')


@pytest.mark.parametrize("value", ["[1]", '{"k": 1}', "1.5", "false", "NaN"])
def test_a_pair_id_that_is_not_a_string_or_an_integer_is_refused(tmp_path, value):
    with pytest.raises(ValueError, match="line 2: sentence_pair_id must be a string or an integer"):
        _load(tmp_path, '{"sentence1": "a", "sentence2": "b", "label": 2, "sentence_pair_id": ' + value + '}')


def test_plain_values_are_read(tmp_path):
    data = _load(tmp_path, '{"sentence1": "a", "sentence2": "b", "label": 2.5, "sentence_pair_id": 17}')
    assert data.scores.tolist() == [1.0, 2.5] and data.ids.tolist() == ["0", "17"]

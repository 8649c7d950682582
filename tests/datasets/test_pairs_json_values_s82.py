"""Hostile values in pairs files (JSON Lines and TSV), found probing the readers:

* a pair id beyond 64 bits (``"pair_id": 10**400`` in JSON, 99999999999999999999 in a TSV)
  raised OverflowError out of read_pairs (a traceback from learnsim fit --pairs); and an id
  written "1_0" or "٣" became the integer 10 or 3 (int() reads Python's underscores and other
  scripts' digits): the ids are now integers only when each is ASCII digits within int64, else
  kept as written;
* a JSON text given as NaN (which Python's json reads) was an empty text without a word, as a
  DataFrame's missing cell is, while Infinity was refused;
* a JSON id that is a list, an object, a float, a boolean or NaN became its str() ("[1]",
  "nan"...) or no id: refused as documents' ids are, naming the line and the field."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import run_cli
from learnsim.datasets import read_pairs
from learnsim.datasets.pairs import DocumentFormatError

_GOOD = '{"text_a": "alpha beta", "text_b": "gamma delta", "label": 1, "pair_id": 7}'


def _jsonl(tmp_path, *lines):
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_pair_id_past_64_bits_is_kept_as_written(tmp_path):
    big = "9" * 400
    path = _jsonl(tmp_path, _GOOD, '{"text_a": "a", "text_b": "c", "label": 1, "pair_id": ' + big + '}')
    pairs = read_pairs(path)
    assert pairs.pair_ids.dtype == object and pairs.pair_ids.tolist() == ["7", big]
    tsv = tmp_path / "pairs.tsv"
    tsv.write_text("label\ttext_a\ttext_b\tpair_id\n1\ta\tb\t99999999999999999999\n0\tc\td\t5\n", encoding="utf-8")
    assert read_pairs(tsv).pair_ids.tolist() == ["99999999999999999999", "5"]


def test_the_command_line_reads_it_too(tmp_path):
    path = _jsonl(tmp_path, _GOOD, '{"text_a": "a", "text_b": "c", "label": 1, "pair_id": ' + "9" * 400 + '}')
    code, out, err = run_cli(["fit", "--method", "film", "--pairs", str(path), "--model", str(tmp_path / "m.npz")])
    assert "Traceback" not in err and "OverflowError" not in err, err


@pytest.mark.parametrize("written", ["1_0", "٣", "+5", "0x1f"])
def test_ids_that_are_not_plain_digits_are_kept_as_written(tmp_path, written):
    tsv = tmp_path / "pairs.tsv"
    tsv.write_text(f"label\ttext_a\ttext_b\tpair_id\n1\ta\tb\t{written}\n0\tc\td\t5\n", encoding="utf-8")
    ids = read_pairs(tsv).pair_ids
    assert ids.dtype == object and ids.tolist() == [written.strip(), "5"]


def test_plain_integer_ids_stay_integers(tmp_path):
    tsv = tmp_path / "pairs.tsv"
    tsv.write_text("label\ttext_a\ttext_b\tpair_id\n1\ta\tb\t-3\n0\tc\td\t9223372036854775807\n", encoding="utf-8")
    ids = read_pairs(tsv).pair_ids
    assert ids.dtype == np.int64 and ids.tolist() == [-3, 2 ** 63 - 1]


def test_a_nan_text_in_json_is_refused(tmp_path):
    path = _jsonl(tmp_path, _GOOD, '{"text_a": NaN, "text_b": "c", "label": 1}')
    with pytest.raises(DocumentFormatError, match=r"line 2: text_a must be text; got float nan"):
        read_pairs(path)


@pytest.mark.parametrize("field", ["pair_id", "id_a"])
@pytest.mark.parametrize("value", ["[1]", '{"k": 1}', "1.5", "true", "NaN", "Infinity"])
def test_a_json_id_that_is_not_a_string_or_an_integer_is_refused(tmp_path, field, value):
    other = ', "id_b": "x"' if field == "id_a" else ""
    path = _jsonl(tmp_path, json.dumps({"text_a": "a", "text_b": "b", "label": 1}).rstrip("}") + f', "{field}": "q1"{other}}}',
                  '{"text_a": "a", "text_b": "c", "label": 1, "' + field + '": ' + value + other + '}')
    with pytest.raises(DocumentFormatError, match=rf"line 2: {field} must be a string or an integer"):
        read_pairs(path)


def test_json_ids_as_strings_and_integers_are_read(tmp_path):
    path = _jsonl(tmp_path, '{"text_a": "a", "text_b": "b", "label": 1, "pair_id": "p1"}',
                  '{"text_a": "a", "text_b": "c", "label": 0, "pair_id": 2}',
                  '{"text_a": "d", "text_b": "c", "label": 0, "pair_id": null}')
    assert read_pairs(path).pair_ids.tolist() == ["p1", "2", None]

"""A model file's manifest was parsed with plain json.loads: an integer of 5,000 digits in it
raised Python's own ValueError ("Exceeds the limit (4300 digits) for integer string conversion
... use sys.set_int_max_str_digits()"), naming neither the file nor the manifest, and a key given
twice ("format": "a", "format": "learnsim-model") was read as its last value without a word.
Both are now ModelFormatError naming the file; a manifest with a lone surrogate escaped in a
string (a vocabulary decoded with surrogateescape) still loads, as learnsim writes such."""
from __future__ import annotations

import json

import numpy as np
import pytest

from learnsim.persistence import ModelFormatError, load
from test_persistence import example, rewrite
from learnsim.persistence import save


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "model.npz"
    save(example(), path)
    return path


def _manifest_text(path):
    with np.load(path, allow_pickle=False) as archive:
        return archive["__manifest__"].tobytes().decode("utf-8")


def _with_manifest(path, text):
    rewrite(path, edit_entries=lambda e: e.update(__manifest__=np.frombuffer(text.encode("utf-8"), np.uint8)))


def test_a_long_integer_in_the_manifest_names_the_file(saved):
    text = _manifest_text(saved)
    _with_manifest(saved, text[:-1] + ', "extra": ' + "9" * 5000 + "}")
    with pytest.raises(ModelFormatError, match=r"model\.npz: the manifest .*integer of more than") as info:
        load(saved)
    assert "set_int_max_str_digits" not in str(info.value)


def test_a_key_given_twice_in_the_manifest_is_refused(saved):
    text = _manifest_text(saved)
    assert text.startswith("{")
    _with_manifest(saved, '{"format": "other", ' + text[1:])
    with pytest.raises(ModelFormatError, match=r"model\.npz: the manifest .*'format' appears twice"):
        load(saved)


def test_the_manifest_as_written_still_loads(saved):
    text = _manifest_text(saved)
    _with_manifest(saved, json.dumps(json.loads(text), indent=1))
    assert load(saved).meta == example().meta

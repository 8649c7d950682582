"""A model made by a newer learnsim, refused by this one, says so and says to upgrade."""
from __future__ import annotations

import json

import numpy as np
import pytest

import learnsim
from learnsim.persistence import ModelFormatError, load, save
from learnsim.text import TextVectorizer


def _edited(path, out, edit):
    with np.load(path, allow_pickle=False) as archive:
        entries = {key: archive[key] for key in archive.files}
    manifest = json.loads(entries["__manifest__"].tobytes().decode("utf-8"))
    edit(manifest)
    entries["__manifest__"] = np.frombuffer(json.dumps(manifest).encode("utf-8"), dtype=np.uint8)
    np.savez(out, **entries)
    return out


def _state_version(manifest, version):
    manifest["objects"]["vectorizer"]["meta"]["state_version"] = 2
    manifest["learnsim_version"] = version


def _new_parameter(manifest, version):
    manifest["objects"]["vectorizer"]["meta"]["params"]["brand_new_option"] = True
    manifest["learnsim_version"] = version


def _new_class(manifest, version):
    manifest["objects"]["vectorizer"]["class"] = "learnsim.text.NewVectorizer"
    manifest["learnsim_version"] = version


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    vectorizer = TextVectorizer().fit(["the cat sat", "a dog barked", "the dog sat"])
    return save({"vectorizer": vectorizer}, tmp_path_factory.mktemp("newer") / "model.npz")


@pytest.mark.parametrize("edit", [_state_version, _new_parameter, _new_class])
def test_a_state_this_learnsim_cannot_read_from_a_newer_one_says_upgrade(saved, tmp_path, edit):
    # it said only "TextVectorizer state has version 2; this learnsim reads version 1" or
    # "unknown parameters ['brand_new_option']", as for a damaged file
    newer = _edited(saved, tmp_path / "newer.npz", lambda m: edit(m, "99.0.0"))
    with pytest.raises(ModelFormatError, match=r"newer\.npz: .*; it was made by learnsim 99\.0\.0, newer than "
                                               rf"this one \({learnsim.__version__}\): upgrade learnsim"):
        load(newer)


@pytest.mark.parametrize("edit", [_state_version, _new_parameter, _new_class])
def test_the_same_state_from_this_learnsim_is_called_damaged_not_newer(saved, tmp_path, edit):
    same = _edited(saved, tmp_path / "same.npz", lambda m: edit(m, learnsim.__version__))
    with pytest.raises(ModelFormatError) as caught:
        load(same)
    assert "newer than" not in str(caught.value)
    older = _edited(saved, tmp_path / "older.npz", lambda m: edit(m, "0.0.1"))
    with pytest.raises(ModelFormatError) as caught:
        load(older)
    assert "newer than" not in str(caught.value)

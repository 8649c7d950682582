"""content_digest (versions: the digest of a model copied into an index's versions, from a file
an index folder brings along) checks a .npz as load does before inflating any entry: a zip bomb,
an entry whose .npy header claims 10^12 rows, objects and a pickle are refused naming the file."""
from __future__ import annotations

import pickle
import shutil
import zipfile

import numpy as np
import pytest

from conftest import run_cli
from index_edit import read_manifest, write_manifest
from index_models import corpus, model
from learnsim import persistence
from learnsim._utils.files import sha256_file
from learnsim.index import Index
from learnsim.index._versions import content_digest
from learnsim.persistence import ModelFormatError, _ExampleState, save
from hostile_npy import npy, object_npy


def _npz(path, entries, method=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", method) as z:
        for name, raw in entries.items():
            z.writestr(name, raw)
    return path


@pytest.fixture
def refuse_inflation(monkeypatch):
    """Fail if an entry is inflated (read) at all."""
    real = zipfile.ZipExtFile.read

    def read(self, n=-1):
        if n is None or n < 0 or n > 1 << 16:
            pytest.fail("an entry was inflated")
        return real(self, n)

    monkeypatch.setattr(zipfile.ZipExtFile, "read", read)


def test_a_zip_bomb_is_refused_unread(tmp_path, monkeypatch, refuse_inflation):
    monkeypatch.setattr(persistence, "INFLATION_ALLOWANCE", 1 << 20)
    bomb = _npz(tmp_path / "bomb.npz", {"zeros.npy": npy((1 << 20,), b"\0" * (8 << 20))}, zipfile.ZIP_DEFLATED)
    with pytest.raises(ModelFormatError, match="inflate to .* more than 100 times") as info:
        content_digest(bomb)
    assert str(bomb) in str(info.value)


HOSTILE = {
    "header claims 10^12 rows": (npy((10 ** 12,), b"\0" * 80), "header announces 8000000000128"),
    "shape product wraps in int64": (npy((2 ** 32, 2 ** 32, 1)), "header announces"),
    "object dtype": (object_npy(), "object array"),
    "a pickle": (pickle.dumps(list(range(100))), "corrupted"),
}


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_hostile_entry_is_refused_naming_the_file(kind, tmp_path, monkeypatch):
    raw, message = HOSTILE[kind]
    path = _npz(tmp_path / "m.npz", {"a.npy": raw})
    monkeypatch.setattr(pickle, "loads", lambda *a, **k: pytest.fail("a pickle was loaded"))
    with pytest.raises(ModelFormatError, match=message) as info:
        content_digest(path)
    assert str(path) in str(info.value) and "'a'" in str(info.value)


def test_the_digest_of_a_model_is_unchanged(tmp_path):
    # the value content_digest gave before the checks, for this model (its save time left out)
    state = _ExampleState({"n": 1}, {"w": np.arange(6, dtype=np.float64).reshape(2, 3)})
    a = content_digest(save(state, tmp_path / "a.npz"))
    b = content_digest(save(state, tmp_path / "b.npz", compress=True))
    assert a == b and len(a) == 64


def test_an_index_whose_model_is_a_zip_bomb_is_refused_in_one_line(tmp_path, monkeypatch):
    # learnsim index rollback on an index (built before versions) whose model.npz is a 2 MB zip
    # bomb, its checksum recorded: 'error: MemoryError' after 17 s at 2.3 GB; the bomb's copy
    # was left in versions/
    texts, _, ids, meta = corpus()
    path = tmp_path / "idx"
    Index.build(path, model("mcd"), texts, ids, meta).close()
    monkeypatch.setattr(persistence, "INFLATION_ALLOWANCE", 1 << 20)
    _npz(path / "model.npz", {"zeros.npy": npy((1 << 20,), b"\0" * (8 << 20))}, zipfile.ZIP_DEFLATED)
    m = read_manifest(path)
    m["model_sha256"] = sha256_file(path / "model.npz")
    write_manifest(path, m)
    shutil.rmtree(path / "versions", ignore_errors=True)      # an index from before versions
    code, out, err = run_cli(["index", "rollback", path])
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert str(path / "model.npz") in err and "inflate" in err
    assert not (path / "versions" / "v1.npz").exists()

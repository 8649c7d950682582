"""An index folder (copied from elsewhere) whose arrays are hostile .npy files, their checksums
recorded as a writer would: a header claiming 10^12 rows, a shape whose int64 product wraps, a
truncated file, objects, a pickle. Index.open, `learnsim index verify` and `learnsim search
--index` refuse it naming the file and the problem (CLI: one line, exit 2), never allocating what
the header claims nor unpickling."""
from __future__ import annotations

import json
import pickle

import pytest

from conftest import run_cli
from index_edit import copy, pristine, reseal  # noqa: F401  (fixtures)
from learnsim.index import Index, IndexDamagedError
from learnsim.index._segments import load_npy, npy_header
from hostile_npy import npy, object_npy


HOSTILE = {
    "header claims 10^12 rows": (npy((10 ** 12,), b"\0" * 80), "announces"),
    # 2^32 * 2^32 * 1 wraps to 0 in int64: the header seemed to announce no data at all
    "shape product wraps in int64": (npy((2 ** 32, 2 ** 32, 1)), "announces"),
    "truncated": (npy((300,), b"\0" * 100), "announces"),
    "object dtype": (object_npy(), "objects"),
    "a pickle": (pickle.dumps(list(range(100))), "not a whole .npy file"),
}


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_the_npy_readers_refuse_a_hostile_file(kind, tmp_path):
    raw, message = HOSTILE[kind]
    (tmp_path / "a.npy").write_bytes(raw)
    for read in (npy_header, load_npy):
        with pytest.raises(IndexDamagedError, match=message) as info:
            read(tmp_path / "a.npy")
        assert str(tmp_path / "a.npy") in str(info.value)


def _segment(path):
    m = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    return path / "segments" / m["segments"][0]["name"]


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_an_index_with_a_hostile_array_is_refused(kind, copy, monkeypatch):
    path = copy("mcd")
    raw, message = HOSTILE[kind]
    target = _segment(path) / "seqs.npy"
    target.write_bytes(raw)
    reseal(path)
    monkeypatch.setattr(pickle, "loads", lambda *a, **k: pytest.fail("a pickle was loaded"))
    with pytest.raises(IndexDamagedError, match=message) as info:
        Index.open(path)
    assert str(target) in str(info.value)
    for argv in (["index", "verify", path], ["search", "--index", path, "--query", "w001 w002"]):
        code, out, err = run_cli(argv)
        assert code == 2, (argv, code, err)
        assert "seqs.npy" in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err

"""The arrays a distributed index's folder brings along (a partition's texts and offsets, the
statistics) are read through the one .npy check of learnsim.persistence: a header claiming 10^12
rows, a shape whose int64 product wraps, a truncated file, objects and a pickle are refused as an
IndexFormatError naming the file and the problem, before numpy allocates what the header claims;
the texts stay memory-mapped."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from learnsim.distributed._partition import PartitionTexts
from learnsim.index._segments import IndexFormatError
from hostile_npy import npy, object_npy


HOSTILE = {
    "header claims 10^12 rows": (npy((10 ** 12,), b"\0" * 80), "header announces 8000000000128"),
    "shape product wraps in int64": (npy((2 ** 32, 2 ** 32, 1)), "header announces"),
    "truncated": (npy((3,), b"\0" * 10), "is 138 bytes"),
    "object dtype": (object_npy(), "object array"),
    "a pickle": (pickle.dumps([0, 3]), "not a .npy array file"),
}


def _partition(directory):
    directory.mkdir()
    np.save(directory / "texts.npy", np.frombuffer("abcdé".encode(), dtype=np.uint8))
    np.save(directory / "text_offsets.npy", np.array([0, 3, 6], dtype=np.int64))
    return directory


@pytest.mark.parametrize("file", ["texts.npy", "text_offsets.npy"])
@pytest.mark.parametrize("kind", list(HOSTILE))
def test_a_hostile_partition_array_is_refused_naming_it(kind, file, tmp_path, monkeypatch):
    directory = _partition(tmp_path / "p0")
    raw, message = HOSTILE[kind]
    (directory / file).write_bytes(raw)
    monkeypatch.setattr(pickle, "loads", lambda *a, **k: pytest.fail("a pickle was loaded"))
    with pytest.raises(IndexFormatError, match=message) as info:
        PartitionTexts(directory, 2)
    assert str(directory / file) in str(info.value)


def test_a_partition_still_opens_with_its_texts_mapped(tmp_path):
    texts = PartitionTexts(_partition(tmp_path / "p0"), 2)
    assert [texts.text(0), texts.text(1)] == ["abc", "dé"]
    assert isinstance(texts.texts[0], np.memmap)


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_hostile_statistics_are_refused_naming_the_file(kind, tmp_path):
    pytest.importorskip("dask.bag")
    from learnsim.distributed.search import DistributedIndex

    index = DistributedIndex.__new__(DistributedIndex)
    index.path, index.manifest = tmp_path, {"statistics": ["df"]}
    (tmp_path / "statistics").mkdir()
    (tmp_path / "statistics" / "df.npy").write_bytes(HOSTILE[kind][0])
    with pytest.raises(IndexFormatError, match=HOSTILE[kind][1]) as info:
        index.statistics
    assert str(tmp_path / "statistics" / "df.npy") in str(info.value)

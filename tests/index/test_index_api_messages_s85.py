"""The Index API as chromadb and txtai users call it: each method's refusal names its own
remedy. An id that is missing (NaN, None) in get, delete or update was refused with add's words,
"give an id ... or None (the index numbers the document)", which means nothing where documents
are looked up; a delete of an id not in the index did not say that ``missing_ok=True`` ignores
such ids (the option was there); ``len(index)`` and ``repr(index)`` were this handle's last view,
stale after another handle's writes where ``count()`` was current."""
from __future__ import annotations

import math
import shutil

import numpy as np
import pytest

from index_models import corpus, model

from learnsim.index import Index


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("messages") / "idx"
    Index.build(path, model("linklearn"), texts[:20], ids[:20], meta[:20]).close()
    return path


@pytest.fixture
def index(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    with Index.open(tmp_path / "idx") as idx:
        yield idx


LOOKUPS = {
    "get": lambda idx, x: idx.get([x]),
    "delete": lambda idx, x: idx.delete([x]),
    "update": lambda idx, x: idx.update([x], metadata=[{"a": 1}]),
    "document": lambda idx, x: idx.document(x),
    "more_like": lambda idx, x: idx.more_like(x),
}


@pytest.mark.parametrize("call", sorted(LOOKUPS))
@pytest.mark.parametrize("missing", [float("nan"), np.float64("nan"), None])
def test_a_missing_id_of_a_lookup_names_the_calls_own_remedy(index, call, missing):
    with pytest.raises((TypeError, ValueError)) as info:
        LOOKUPS[call](index, missing)
    message = str(info.value)
    # add's remedy (None: the index numbers the document) means nothing for a lookup
    assert "numbers the document" not in message
    assert "id" in message and ("NaN" in message or "None" in message)
    assert call in message          # the call named, with what it takes
    assert len(index) == index.count() == 20


def test_a_bytes_id_says_to_decode_it(index):
    for call in ("get", "delete", "document"):
        with pytest.raises(TypeError, match=r"decode"):
            LOOKUPS[call](index, b"d1")
    with pytest.raises(TypeError, match=r"decode"):
        index.add(["w001 w002"], ids=[b"new"])
    assert index.count() == 20


def test_a_delete_of_ids_not_in_the_index_names_them_all_and_missing_ok(index):
    with pytest.raises(KeyError) as info:
        index.delete(["d1", "zzz", "yyy"])
    message = str(info.value)
    assert "'zzz'" in message and "'yyy'" in message
    assert "missing_ok=True" in message and "nothing was deleted" in message
    assert index.count() == 20                 # one transaction: d1 is still there
    assert index.delete(["d1", "zzz"], missing_ok=True) == 1
    # what the command line and the service show (each names its own way round) holds no Python call
    assert "missing_ok" not in info.value.args[0]


def test_len_and_repr_see_another_handles_writes(index, tmp_path):
    assert len(index) == index.count() == 20
    with Index.open(tmp_path / "idx") as other:
        other.delete(["d0", "d1", "d2"])
        other.add(["w010 w011"], ids=["new"])
    assert len(index) == index.count() == 18
    assert "18 documents" in repr(index)


def test_repr_of_a_closed_index_says_so(index):
    index.close()
    assert "closed" in repr(index)
    with pytest.raises(ValueError, match="closed"):
        len(index)


def test_nan_in_add_keeps_adds_remedy(index):
    # add's own words stay: None there is the index numbering the document
    with pytest.raises(ValueError, match="numbers the document"):
        index.add(["w001 w002"], ids=[math.nan])


def test_an_update_of_ids_not_in_the_index_names_them_all(index):
    # it named the first only ("id 'zz' is not in the index (use add)"), and an update of the
    # metadata alone not even the way round
    before = index.get(["d1"])
    for call in (lambda: index.update(["d1", "zz", "yy"], ["w001", "w002", "w003"]),
                 lambda: index.update(["d1", "zz", "yy"], metadata=[{}, {}, {}])):
        with pytest.raises(KeyError) as info:
            call()
        message = str(info.value)
        assert "'zz'" in message and "'yy'" in message
        assert "nothing was updated" in message and "upsert" in message
        assert index.get(["d1"]) == before and index.count() == 20

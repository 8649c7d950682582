"""Odd but common arguments to the Index's id-taking methods, each either read as meant or
refused naming the problem: ``delete(..., missing_ok="false")`` ignored the ids not in the index
(the string is true), where get refused it; a 2-D array of ids was "ids[0] must be a non-empty str
or an int ... got ndarray", where texts say "must be one-dimensional"; a DataFrame given as ids
was read as its column names (``delete(df)`` looked up the id "id"); txtai's ``(id, text, tags)``
tuples were "texts[0] must be a str; got tuple", naming no way to give them."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from index_models import corpus, model

from learnsim.index import Index


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("odd") / "idx"
    Index.build(path, model("linklearn"), texts[:12], ids[:12], meta[:12]).close()
    return path


@pytest.fixture
def index(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    with Index.open(tmp_path / "idx") as idx:
        yield idx


@pytest.mark.parametrize("flag", ["false", "yes", 1, None])
def test_delete_missing_ok_must_be_a_bool(index, flag):
    with pytest.raises(TypeError, match="missing_ok must be True or False"):
        index.delete(["zzz"], missing_ok=flag)
    with pytest.raises(TypeError, match="missing_ok must be True or False"):
        index.delete(["d1"], missing_ok=flag)
    assert index.count() == 12


def test_delete_missing_ok_takes_a_numpy_bool(index):
    assert index.delete(["zzz", "d1"], missing_ok=np.bool_(True)) == 1
    assert index.get(["d2"], missing_ok=np.bool_(False))["ids"] == ["d2"]


@pytest.mark.parametrize("call", [lambda idx, ids: idx.get(ids), lambda idx, ids: idx.delete(ids),
                                  lambda idx, ids: idx.add(["w001 w002"], ids=ids)])
def test_a_two_dimensional_array_of_ids_is_named(index, call):
    with pytest.raises(ValueError, match=r"ids must be one-dimensional .*shape \(1, 1\)"):
        call(index, np.array([["d1"]]))
    assert index.count() == 12


@pytest.mark.parametrize("call", [lambda idx, ids: idx.get(ids), lambda idx, ids: idx.delete(ids),
                                  lambda idx, ids: idx.add(["w001 w002"], ids=ids)])
def test_a_table_of_ids_is_refused_naming_its_column(index, call):
    pd = pytest.importorskip("pandas", reason="pandas is not installed")
    with pytest.raises(TypeError, match=r"DataFrame.*\['id'\]"):
        call(index, pd.DataFrame({"id": ["d1"]}))
    assert index.count() == 12
    # its column is the ids
    assert index.get(pd.DataFrame({"id": ["d1", "d2"]})["id"])["ids"] == ["d1", "d2"]


@pytest.mark.parametrize("write", ["add", "upsert"])
def test_txtai_tuples_are_refused_naming_the_lists(index, write):
    with pytest.raises(TypeError, match=r"texts\[0\] must be a str; got tuple.*ids=.*metadata="):
        getattr(index, write)([("x1", "w001 w002", None)])
    assert index.count() == 12


@pytest.mark.parametrize("call", [lambda idx: idx.search("w001", filter={}), lambda idx: idx.get(filter={}),
                                  lambda idx: idx.count(filter={}), lambda idx: idx.more_like("d1", filter={})])
def test_an_empty_filter_says_none_is_no_filter(index, call):
    # refused, as documented (an empty filter is no mistake to guess at), but the message named
    # only "a non-empty dict", not the way to ask for every document (chromadb and MongoDB read {}
    # as no filter)
    from learnsim.index import FilterError

    with pytest.raises(FilterError, match=r"filter=None"):
        call(index)

"""Metadata that is not JSON (a numpy scalar from a DataFrame's cell, NaN, a Timestamp, a set) was
refused with the whole dict shown and no word of which value: ``{'year': np.int64(2020), ...}``
must hold JSON values only. The refusal now names the first such value, where it is, and what it
is, with the way round for numpy's scalars (still a ValueError: nothing is written)."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from index_models import corpus, model

from learnsim.index import Index


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    path = tmp_path_factory.mktemp("metavalues") / "idx"
    Index.build(path, model("linklearn"), texts[:8], ids[:8], meta[:8]).close()
    return path


@pytest.fixture
def index(built, tmp_path):
    shutil.copytree(built, tmp_path / "idx")
    with Index.open(tmp_path / "idx") as idx:
        yield idx


@pytest.mark.parametrize("meta, named", [
    ({"title": "a", "year": np.int64(2020)}, r"\['year'\] = .*2020.*numpy int64.*\.item\(\)"),
    ({"nested": {"score": np.float32(0.5)}}, r"\['nested'\]\['score'\] .*numpy float32"),
    ({"tags": ["a", float("nan")]}, r"\['tags'\]\[1\] = nan"),
    ({"seen": {1, 2}}, r"\['seen'\] .*set"),
    ({3: "x"}, r"key 3 .*int"),
])
def test_a_value_that_is_not_json_is_named(index, meta, named):
    with pytest.raises(ValueError, match=r"metadata\[1\] must hold JSON values only") as info:
        index.add(["w001 w002", "w003 w004"], ids=["a", "b"], metadata=[{"ok": 1}, meta])
    assert len(__import__("re").findall(named, str(info.value))) == 1, str(info.value)
    assert index.count() == 8

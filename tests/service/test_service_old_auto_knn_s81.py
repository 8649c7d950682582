"""A served model whose 'learnsim fit --matcher auto' chose the pairwise kNN rule (model files
saved before auto stopped choosing it) warns on load, and learnsim match says so in one line; the
service said nothing of it: POST /v1/match answered that rule's decisions ('a phone' and 'b
phone' alone a duplicate at P 0.917) with ``"warnings": []`` and /v1/info named only
``duplicate_rule='knn'``. Both now carry the load's sentence; a kNN rule named alone stays quiet."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from learnsim.index import Index  # noqa: E402
from learnsim.matching._rule import OLD_AUTO_KNN  # noqa: E402
from learnsim.service import create_app  # noqa: E402
from old_matchers import old_auto_knn  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
BASE = "http://127.0.0.1"


def _notes():
    subjects = ["The new phone", "This smartphone", "My old phone", "In Boston", "In Denver", "This restaurant",
                "The noodle bar", "The new cafe"]
    tails = ["has a battery that dies before lunch", "takes very sharp photos at night",
             "heavy rain is expected tomorrow", "snow is forecast for the weekend",
             "serves very tasty braised pork", "brews very good coffee"]
    notes = [f"{s} {t}." for s in subjects for t in tails]
    texts = notes + [n.replace("very", "really") if "very" in n else "Honestly, " + n for n in notes]
    n = len(notes)
    rng = np.random.default_rng(0)
    pairs = [(i, n + i, 1) for i in range(n)]
    while len(pairs) < 2 * n:
        i, j = rng.choice(n, 2, replace=False)
        pairs.append((int(i), int(j), 0))
    return texts, pairs


@pytest.fixture(scope="module")
def indexes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("svc-oldknn")
    texts, pairs = _notes()
    old_model, named = old_auto_knn(texts, pairs)
    ids = [f"d{i}" for i in range(len(texts))]
    Index.build(folder / "old", old_model, texts, ids).close()
    Index.build(folder / "named", named, texts, ids).close()
    return {"old": folder / "old", "named": folder / "named", "texts": texts}


def _said(path, texts):
    with TestClient(create_app(path), raise_server_exceptions=False, base_url=BASE) as c:
        pairs = c.post("/v1/match", json={"pairs": [[texts[0], texts[1]], [texts[0], texts[20]]]})
        one = c.post("/v1/match", json={"text": texts[0], "k": 3})
        info = c.get("/v1/info")
    for r in (pairs, one, info):
        assert r.status_code == 200, r.text
    return pairs.json(), one.json(), info.json()


def test_the_old_auto_knn_rule_is_said_in_match_answers_and_info(indexes):
    pairs, one, info = _said(indexes["old"], indexes["texts"])
    assert OLD_AUTO_KNN in pairs["warnings"], pairs
    assert OLD_AUTO_KNN in one["warnings"], one
    assert OLD_AUTO_KNN in info.get("warnings", []), info
    assert pairs["score"] == "mutual_neighbours"         # the rule is kept, and said


def test_a_knn_rule_named_alone_stays_quiet(indexes):
    pairs, one, info = _said(indexes["named"], indexes["texts"])
    assert pairs["warnings"] == [] and one["warnings"] == [] and info.get("warnings", []) == [], (pairs, info)


def test_the_pages_near_duplicates_say_it_too(indexes):
    # the search page's near-duplicates view shows the rule's probabilities, as /v1/match does
    for name, said in (("old", True), ("named", False)):
        with TestClient(create_app(indexes[name]), raise_server_exceptions=False, base_url=BASE) as c:
            page = c.get("/", params={"duplicates": "d0"})
        assert page.status_code == 200, page.text
        assert ("two texts given alone" in page.text) == said, name

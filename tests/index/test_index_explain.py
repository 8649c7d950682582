"""Explanations of an index's hits from its query plan (issue 32, part 1): for the cosine and
MCD models they are the pipeline's own, computed without loading the pipeline (whose load
imports scikit-learn, most of ``learnsim search --explain``); the other models are explained by
the pipeline as before."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import pytest

from index_models import FAMILIES, corpus, model

from learnsim.index import Index
from learnsim.index._explain import plan_pipeline
from learnsim.index._integrity import load_plan

pytestmark = pytest.mark.filterwarnings("ignore::learnsim.baseline.BaselineWarning")

PLANNED = ("mcd", "film", "film_pairs", "mcd_lsi", "film_lsi")
QUERIES = ["w001 w002 w003", "w010 w011 w040 w041", "unknownword", "w001"]


def _model(family):
    if family in FAMILIES:
        return model(family)
    import learnsim

    texts, topics, _, _ = corpus()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if family == "mcd_lsi":
            return learnsim.fit(texts, clusters=topics, lsi=40)
        return learnsim.fit(texts, clusters=topics, method="film", lsi=40, n_components=10, baseline_holdout=None)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    texts, _, ids, meta = corpus()
    root = tmp_path_factory.mktemp("explain")
    for family in FAMILIES + PLANNED[3:]:
        Index.build(root / family, _model(family), texts, ids, meta).close()
    return root


def _same(a, b):
    """Two explanations alike: the same keys, words and word pairs in the same order, the same
    numbers (to the float32 rounding of the word vectors' weights, at most)."""
    assert set(a) == set(b)
    for key in a:
        if isinstance(a[key], list):
            assert [{k: v for k, v in x.items() if k != "contribution"} for x in a[key]] == \
                   [{k: v for k, v in x.items() if k != "contribution"} for x in b[key]], key
            assert [x["contribution"] for x in a[key]] == pytest.approx([x["contribution"] for x in b[key]],
                                                                        rel=1e-9, abs=1e-12)
        elif isinstance(a[key], float):
            assert a[key] == pytest.approx(b[key], rel=1e-9, abs=1e-12), key
        else:
            assert a[key] == b[key], key


def _planned(idx, family):
    """Whether the plan explains the index's hits: the cosine and MCD models (a FILM that fell back
    to its input cosine over the searched collection's words too: the pipeline lists the
    collection's words alone then, as the plan holds them)."""
    return family in PLANNED


@pytest.mark.parametrize("family", FAMILIES + PLANNED[3:])
def test_the_plan_explains_as_the_pipeline_does(built, family):
    texts = corpus()[0]
    idx = Index.open(built / family)
    planned = plan_pipeline(load_plan(idx.path, idx.manifest), idx.kind, idx.scoring, idx.manifest["statistics"])
    # term weights need the learned document weights, a relative metric its class: the pipeline
    assert (planned is not None) == _planned(idx, family)
    for q in QUERIES + [texts[3], texts[50]]:
        fast = idx.search(q, k=5, explain=True, n_top=4)
        assert (idx._pipeline is None) == (planned is not None)
        with_model = Index.open(built / family)
        with_model.pipeline
        slow = with_model.search(q, k=5, explain=True, n_top=4)
        assert [h["id"] for h in fast] == [h["id"] for h in slow]
        for a, b in zip(fast, slow):
            _same(a["explanation"], b["explanation"])
        with_model.close()
    with pytest.raises(ValueError, match="n_top"):
        idx.search(QUERIES[0], k=2, explain=True, n_top=0)
    idx.close()


def test_an_explained_search_imports_neither_sklearn_nor_the_model(built):
    paths = []
    for family in PLANNED:
        idx = Index.open(built / family)
        if _planned(idx, family):
            paths.append(str(idx.path))
        idx.close()
    assert str(built / "mcd") in paths and str(built / "film_pairs") in paths
    code = textwrap.dedent(f"""
        import sys
        from learnsim.index import Index
        for p in {paths!r}:
            idx = Index.open(p)
            hits = idx.search("w001 w002 w003", k=3, explain=True)
            assert len(hits) == 3 and all(h["explanation"]["words"] for h in hits), hits
            assert idx._pipeline is None
        bad = sorted(m for m in sys.modules if m.split(".")[0] == "sklearn")
        print("imported:", bad)
        sys.exit(1 if bad else 0)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_damaged_plan_is_named_by_an_explained_search(built, tmp_path):
    import shutil

    from learnsim.index import IndexDamagedError

    path = tmp_path / "mcd"
    shutil.copytree(built / "mcd", path)
    idx = Index.open(path)
    plan = path / idx.manifest["plan_dir"] / "factor.npy"
    raw = bytearray(plan.read_bytes())
    raw[-1] ^= 0xFF
    plan.write_bytes(bytes(raw))
    with pytest.raises(IndexDamagedError, match="factor.npy"):
        idx.search("w001 w002", k=2, explain=True)

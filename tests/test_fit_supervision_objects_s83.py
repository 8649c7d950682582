"""learnsim.fit takes learnsim's own supervision objects (Clusters, Pairs, Triplets, Links), as
the estimators do, and fits the same model as of the plain lists they hold; objects whose items
are not the texts are refused naming both counts."""
import warnings

import numpy as np
import pytest

import learnsim
import learnsim.fitting
from learnsim.supervision import Clusters, Links, Pairs, Triplets, clusters_to_triplets

TEXTS = [f"document {i} about topic{i % 3} word{i % 5} thing{i % 7} item{i % 4}" for i in range(48)]
LABELS = [i % 3 for i in range(48)]


def _scores(pipeline):
    return np.asarray(pipeline.similarity(TEXTS[:6], TEXTS[6:12]))


def _fit(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return learnsim.fit(TEXTS, random_state=0, **kw)


def test_clusters_object_fits_as_its_labels():
    a, b = _fit(clusters=Clusters(LABELS)), _fit(clusters=LABELS)
    np.testing.assert_allclose(_scores(a), _scores(b), atol=1e-9)


def test_clusters_object_keeps_items_in_no_cluster():
    labels = [None if i % 8 == 0 else f"c{i % 3}" for i in range(48)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = (learnsim.fitting.fit(TEXTS, clusters=c, random_state=0) for c in (Clusters(labels), labels))
    assert a.report["clustered_documents"] == b.report["clustered_documents"] == 42
    np.testing.assert_allclose(_scores(a.pipeline), _scores(b.pipeline), atol=1e-9)


def test_pairs_object_fits_as_its_rows():
    rows = [(i, i + 3, 1) for i in range(0, 40, 2)] + [(i, i + 1, 0) for i in range(1, 40, 2)]
    obj = Pairs([r[:2] for r in rows], labels=[r[2] for r in rows])
    a, b = _fit(pairs=obj, method="film"), _fit(pairs=rows, method="film")
    np.testing.assert_allclose(_scores(a), _scores(b), atol=1e-9)


def test_graded_pairs_object_fits_as_its_rows():
    rows = [(i, (i + 3) % 48, float(i % 6)) for i in range(40)]
    obj = Pairs([r[:2] for r in rows], scores=[r[2] for r in rows])
    a, b = _fit(pairs=obj), _fit(pairs=rows)
    np.testing.assert_allclose(_scores(a), _scores(b), atol=1e-9)


def test_triplets_object_fits_as_its_rows():
    t = clusters_to_triplets(Clusters(LABELS), 150, random_state=0)
    assert isinstance(t, Triplets)
    a, b = _fit(triplets=t), _fit(triplets=[tuple(r) for r in t.indices.tolist()])
    np.testing.assert_allclose(_scores(a), _scores(b), atol=1e-9)


def test_links_object_fits_as_its_edges():
    edges = [(i, (i + 3) % 48) for i in range(48)] + [(i, (i + 6) % 48) for i in range(0, 48, 2)]
    a, b = _fit(links=Links.from_edges(edges, 48)), _fit(links=edges)
    np.testing.assert_allclose(_scores(a), _scores(b), atol=1e-9)


@pytest.mark.parametrize("kind, obj", [
    ("clusters", lambda: Clusters(LABELS[:40])),
    ("links", lambda: Links.from_edges([(0, 1), (1, 2)], 40)),
])
def test_an_object_over_other_items_is_refused_naming_both_counts(kind, obj):
    with pytest.raises(ValueError, match=r"40 .*48|48 .*40"):
        _fit(**{kind: obj()})


def test_weighted_clusters_are_refused_by_film_not_silently_unweighted():
    # mcd fits on them (tests/test_fit_supervision_objects_s84.py); film has no use for them
    with pytest.raises(ValueError, match="weights"):
        _fit(clusters=Clusters(LABELS, weights={0: 2.0, 1: 1.0, 2: 1.0}), method="film")

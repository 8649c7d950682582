"""mcd on 4 or 5 labelled clusters: too few for the search check to tell a gain from chance on
whole held-out clusters (it needs 6 held-out groups); checked on held-out items of each cluster
instead (stop 85), the model here ends as the strongest baseline and the check warns so. mcd's
own check had warned too, that it was 'not checked against the baseline (Euclidean distance ...):
4 clusters; holding 2 out needs 6': two warnings for the one cause, the first about a model not
kept. One warning per cause per fit: the search check's, which says what the model is."""
from __future__ import annotations

import warnings

import pytest

from learnsim.fitting import fit
from learnsim.baseline import BaselineWarning
from learnsim.datasets import make_clustered_corpus


def _fit(n_clusters, **options):
    corpus = make_clustered_corpus(n_clusters=n_clusters, docs_per_cluster=6, random_state=3)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        result = fit(list(corpus.data), clusters=[int(c) for c in corpus.target], method="mcd",
                     **options)
    return result, [str(w.message) for w in said if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize("options", [{}, {"n_basis": 8, "shrinkage": 0.1, "complement_weight": 0.5}],
                         ids=["auto", "given"])
@pytest.mark.parametrize("n_clusters", [4, 5])
def test_four_or_five_clusters_warn_once(n_clusters, options):
    result, said = _fit(n_clusters, **options)
    report = result.report
    assert report["search_baseline_gain"]["status"] == "baseline"
    assert report["model"] == report["strongest_baseline"]
    assert len(said) == 1, said
    # stop 85: 4-5 clusters are checked on held-out items of each cluster (no longer 'too few'
    # by their count alone); on this corpus the learned metric loses there
    assert said[0].startswith("learnsim fit --method mcd: ") and "does not beat" in said[0], said
    # the report keeps mcd's own check (--json's baseline_gain): only the repeated warning goes
    assert report["baseline_gain"]["status"] in ("unchecked", "learned", "baseline")


def test_six_clusters_keep_mcd_s_own_warning_where_its_model_is_saved():
    """Six clusters or more: the search check can keep the learned metric, and mcd's own check
    against Euclid is a fact about the model it checks: its warning stays where that model is
    the one saved. Where the search check then ends the fit as the strongest baseline, that
    check's warning says so, and mcd's (about a model not saved) is left out (stop 82)."""
    result, said = _fit(6)
    assert result.report["baseline_gain"]["status"] != "learned"   # this corpus: mcd falls back to Euclid
    own = [s for s in said if s.startswith("MinimumClusterDistortion: ")]
    if result.report["model"] == "learned":
        assert own, said
    else:
        assert not own and len(said) == 1 and said[0].startswith("learnsim fit --method mcd: "), said


def test_mcd_alone_still_warns():
    """MinimumClusterDistortion used by itself (no search check follows) says it is unchecked."""
    import numpy as np

    from learnsim.mcd import MinimumClusterDistortion

    X = np.random.default_rng(0).normal(size=(20, 5))
    with pytest.warns(BaselineWarning, match="not checked"):
        MinimumClusterDistortion().fit(X, np.repeat(np.arange(4), 5))


def test_the_stem_language_warning_is_said_once_per_fit():
    """stem=True with no language: the texts' language is detected and a warning names the stemmer
    taken. mcd vectorises once per weighting it tries (tf.idf and BM25), and the warning came
    once for each: the same fact twice in one fit (CLI: 'learnsim fit --input F --stem')."""
    pytest.importorskip("Stemmer")
    topics = ["chat chien souris", "train gare voyage", "pain four farine", "guitare piano chanson",
              "banque argent salaire", "jardin rose tulipe"]
    texts = [f"Le {a} et la {b} sont dans les {c} avec nous pour le jour {i}"
             for topic in topics for a, b, c in [topic.split()] for i in range(6)]
    labels = [k for k in range(len(topics)) for _ in range(6)]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        fit(texts, clusters=labels, method="mcd", stem=True)
    stems = [str(w.message) for w in said if str(w.message).startswith("stem: ")]
    assert len(stems) == 1, stems
    assert "French" in stems[0]

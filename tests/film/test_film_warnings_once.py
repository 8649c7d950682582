"""One warning per cause, saying what is true of the model saved: FILM from clusters that fell
back to the input cosine said 'FILM: average precision ...; the learned part does not help, so the
model falls back to the baseline', and the search check that followed made the model BM25 and
said so too: two fall-backs, the first naming a model that is not the one saved."""
import warnings

from learnsim import fitting
from learnsim.baseline import BaselineWarning
from learnsim.datasets import make_clustered_corpus


def test_film_s_own_fall_back_is_not_said_where_search_makes_the_model_a_baseline():
    corpus = make_clustered_corpus(n_clusters=8, docs_per_cluster=10, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fitting.fit(list(corpus.data), clusters=list(corpus.target), method="film", n_components=4,
                             max_iter=20)
    report = result.report
    assert report["baseline_gain"]["status"] == "baseline" and report["model"] == "bm25"     # the case
    said = [str(w.message) for w in caught if issubclass(w.category, BaselineWarning)]
    assert len(said) == 1 and said[0].startswith("learnsim fit --method film: nDCG@10"), said
    assert report["baseline_gain"]["gain"] is not None      # FILM's own check stays in the report


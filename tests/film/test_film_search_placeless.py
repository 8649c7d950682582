"""A document with no term of FILM's vocabulary has a zero row: its learned cosine with every
query is 0, while a document sharing the query's word may score below 0 under the learned map.
Such a document ranked above it; now a search leaves it out, in memory (``Pipeline.search``)
and in an index (one query at a time and in a batch), as it does under a distance model and a
model of shared words alone."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from learnsim.film import FILM
from learnsim.index import Index
from learnsim.pipeline import Pipeline
from learnsim.text import TextVectorizer

# "zzqx" is no word of the vocabulary; "cherry banana banana" shares "cherry" with the query but
# the map below puts it on the far side of the query
DOCS = ["apple banana banana", "cherry banana banana", "zzqx", "apple cherry", "banana"]
QUERY = "apple cherry"


@pytest.fixture(scope="module")
def pipeline():
    texts = [d for d in DOCS if d != "zzqx"]
    vec = TextVectorizer("tf", dtype=np.float64).fit(texts)
    X = vec.transform(texts)
    film = FILM(n_components=1, baseline_holdout=None, random_state=0, max_iter=5).fit(
        X, np.array([[0, 2, 1], [2, 0, 1], [1, 3, 0]]))
    # a one-dimensional learned space where apple and cherry point one way, banana the other
    L = np.zeros((1, len(vec.vocabulary_)))
    for word, weight in {"apple": 1.0, "cherry": 0.5, "banana": -1.0}.items():
        L[0, vec.vocabulary_[word]] = weight
    film._components = np.asfortranarray(L)
    film.input_weight_ = 0.0
    return Pipeline(vec, film)


def test_the_learned_cosine_scores_a_shared_word_below_a_zero_row(pipeline):
    # what the search must not follow: cosine 0 for the zero row, -1 for the document sharing "cherry"
    S = pipeline.metric.learned_similarity(pipeline.vectorizer.transform([QUERY]), pipeline.vectorizer.transform(DOCS))
    assert S[0, 2] == 0.0 and S[0, 1] < 0.0


def test_pipeline_search_leaves_the_zero_row_out(pipeline):
    hits = pipeline.search([QUERY], DOCS, k=len(DOCS))[0]
    ids = [h["corpus_id"] for h in hits]
    assert 2 not in ids
    assert ids[0] == 3 and 1 in ids and len(ids) == len(DOCS) - 1     # every other document


def test_index_search_leaves_the_zero_row_out_one_query_and_in_a_batch(pipeline, tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        index = Index.build(tmp_path / "i", pipeline, DOCS, ids=[f"d{i}" for i in range(len(DOCS))])
    notes = [w.message for w in caught if "vocabulary" in str(w.message)]
    # the ids are the warning's (PlacelessWarning.ids), its text the same for every write
    assert len(notes) == 1 and list(notes[0].ids) == ["d2"] and "leaves them out" in str(notes[0])
    want = [f"d{h['corpus_id']}" for h in pipeline.search([QUERY], DOCS, k=len(DOCS))[0]]
    assert [h["id"] for h in index.search(QUERY, k=len(DOCS))] == want
    # four queries or more: the dense batch path
    for hits in index.search([QUERY] * 5, k=len(DOCS)):
        assert [h["id"] for h in hits] == want
    # a document added later (an in-memory segment) is left out the same way
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        index.add(["zzqx zzqx"], ids=["late"])
    assert "late" not in {h["id"] for h in index.search(QUERY, k=10)}
    assert all("late" not in {h["id"] for h in hits} for hits in index.search([QUERY] * 5, k=10))

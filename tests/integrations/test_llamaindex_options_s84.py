"""LlamaIndex's retrievers are configured by setting ``similarity_top_k`` on them (as
VectorIndexRetriever is): a bad value set so reached the search and was refused as
"k must be a positive integer", a name the LlamaIndex user never gave. Now the message names
similarity_top_k (and explain, n_top alike), as the constructor's does."""
from __future__ import annotations

import pytest

pytest.importorskip("llama_index.core", reason='llama-index-core is not installed (pip install "learnsim[llamaindex]")')

from learnsim.index import Index  # noqa: E402
from learnsim.integrations.llamaindex import LearnsimRetriever  # noqa: E402

TEXTS = ["how do I reset my password", "forgot my password", "I was charged twice",
         "refund for a double charge", "app crashes on start", "crash after the update"]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    import warnings

    import learnsim

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # six texts: the fit ends as a baseline, and says so
        model = learnsim.fit(TEXTS, clusters=[0, 0, 1, 1, 2, 2])
    with Index.build(tmp_path_factory.mktemp("li") / "index", model, TEXTS) as built:
        yield built


@pytest.mark.parametrize("name, value, error", [("similarity_top_k", "3", ValueError),
                                                ("similarity_top_k", 0, ValueError),
                                                ("n_top", 0, ValueError), ("explain", "false", TypeError)])
def test_an_option_set_on_the_retriever_is_refused_by_its_name(index, name, value, error):
    retriever = LearnsimRetriever(index)
    setattr(retriever, name, value)
    with pytest.raises(error, match=rf"^{name} must be"):
        retriever.retrieve("password")


def test_a_good_value_set_is_used(index):
    retriever = LearnsimRetriever(index)
    retriever.similarity_top_k = 1
    assert len(retriever.retrieve("password charged crash")) == 1

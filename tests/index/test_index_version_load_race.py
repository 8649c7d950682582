"""A handle loading its model while another handle promotes a version: the model it loaded for
the old manifest is not kept under the new one. ``learnsim serve`` loads the model in a thread
while searches reload on a switch; kept, a slow first load left the handle on the new version's
manifest with the old version's model, and explained searches during a promote answered 400 ("a
term-weight model weights the document with the statistics of the collection ...")."""
from __future__ import annotations

import warnings

import pytest

from index_models import corpus, model

from learnsim.index import Index
from learnsim.index import _versions


@pytest.fixture
def two_handles(tmp_path):
    texts, _, ids, meta = corpus()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Index.build(tmp_path / "idx", model("mcd"), texts, ids, meta).close()
    serving, promoting = Index.open(tmp_path / "idx"), Index.open(tmp_path / "idx")
    yield serving, promoting
    serving.close()
    promoting.close()


def test_a_model_loaded_across_a_promote_is_not_kept_under_the_new_version(two_handles, monkeypatch):
    serving, promoting = two_handles
    real = _versions.load_model
    switched = []

    def slow_load(path, manifest):
        got = real(path, manifest)
        if not switched:
            # while the first load runs, another handle promotes and this one reloads
            switched.append(promoting.promote(promoting.stage(model("film"))))
            serving._reload_if_changed()
        return got
    monkeypatch.setattr(_versions, "load_model", slow_load)
    old = serving.pipeline                                  # the load that crossed the switch
    assert switched and serving.model_version == 2
    now = serving.pipeline
    assert now is not old
    assert _versions.load_model(serving.path, serving.manifest).scoring == now.scoring
    # and the handle searches and explains as a fresh handle on the new version does
    fresh = Index.open(serving.path)
    try:
        q = [corpus()[0][0]]
        assert [h["id"] for h in serving.search(q, k=5)[0]] == [h["id"] for h in fresh.search(q, k=5)[0]]
        serving.search(q, k=3, explain=True)
    finally:
        fresh.close()

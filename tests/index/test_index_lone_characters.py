"""A query of one character of a script written without spaces (猫, 桜, 물). Documents read as
character bigrams hold it only inside bigrams (子猫, 猫が), so the character alone was a term no
document had, and the search found nothing. ``Index.search`` now reads it as the vocabulary's terms
holding it (:class:`learnsim.text.LoneCharacters`): the documents where it stands, with
explanations that name those terms and sum to the score."""
from __future__ import annotations

import warnings

import pytest

from cjk_texts import CHINESE, JAPANESE
from learnsim._baseline_models import baseline_pipeline
from learnsim.index import Index


@pytest.fixture(scope="module", params=["ja", "zh"])
def collection(request, tmp_path_factory):
    groups = JAPANESE if request.param == "ja" else CHINESE
    texts = [t for g in groups.values() for t in g]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        index = Index.build(tmp_path_factory.mktemp(request.param) / "idx", baseline_pipeline("bm25", texts), texts)
    yield texts, index
    index.close()


def test_a_lone_character_finds_every_document_holding_it_and_no_other(collection):
    texts, index = collection
    holding = {str(i + 1) for i, t in enumerate(texts) if "猫" in t}
    hits = index.search("猫", k=len(texts))
    assert {h["id"] for h in hits} == holding, hits      # BM25 gives only documents sharing a term
    # in a list of queries (one batch), and with a filter-free second query beside it
    first, second = index.search(["猫", texts[0]], k=len(texts))
    assert [h["id"] for h in first] == [h["id"] for h in hits]
    assert second and second[0]["text"] == texts[0]


def test_its_explanations_name_the_terms_and_sum_to_the_score(collection):
    _, index = collection
    for hit in index.search("猫", k=3, explain=True):
        words = hit["explanation"]["words"]
        assert words and all("猫" in w["word"] and len(w["word"]) == 2 for w in words), words
        total = sum(w["contribution"] for w in words) + hit["explanation"]["rest"]
        assert total == pytest.approx(hit["score"], rel=1e-5)


def test_other_queries_are_read_as_before(collection):
    texts, index = collection
    queries = [texts[3], "cat", "猫 " + texts[3][:2], "鯨"]     # a run, ASCII, a known bigram beside, unknown
    read = index._with_lone_characters(queries)
    assert read[:2] == queries[:2]
    assert read[2] != queries[2] and read[2].endswith(texts[3][:2]) and read[3] == "鯨"
    assert index.search("鯨", k=5) == []


def test_pipeline_search_reads_it_as_the_index_does(collection):
    texts, index = collection
    pipeline = index.pipeline
    from_index = [h["id"] for h in index.search("猫", k=5)]
    from_pipeline = [str(h["corpus_id"] + 1) for h in pipeline.search("猫", texts, k=5)]
    assert from_pipeline == from_index and from_index

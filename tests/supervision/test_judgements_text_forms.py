"""judgements_from (learnsim.fit(queries=, qrels=, corpus=)) read each item of a list as an
(id, text) pair: a list of texts of two characters each became ids and texts of one character
(["ok", "no"]: document "o" with the text "k"), and a pandas Series of texts keyed by their ids
was refused as 'each item must be an (id, text) pair' (helper h-api's sweep of the API)."""
from __future__ import annotations

import pytest

from learnsim.supervision import judgements_from

QUERIES = {"q1": "ok?"}
QRELS = {"q1": {"d1": 1}}


@pytest.mark.parametrize("corpus", [["ok", "no"], ["a longer text", "another one"], ("ok", "no"), "generator"])
def test_a_list_of_texts_without_ids_is_refused(corpus):
    if corpus == "generator":
        corpus = (t for t in ["ok", "no"])
    with pytest.raises(TypeError, match=r"corpus must be a mapping \{id: text\}.*got a (list|tuple|generator) of texts.*dict\(zip\(ids, texts\)\)"):
        judgements_from(QUERIES, QRELS, corpus)


def test_a_series_of_texts_is_read_by_its_index_as_a_mapping_is():
    pd = pytest.importorskip("pandas")
    corpus = {"d1": "ok, thanks", "d2": "no way"}
    from_dict = judgements_from(QUERIES, QRELS, corpus)
    from_series = judgements_from(QUERIES, QRELS, pd.Series(corpus))
    assert from_series[0] == from_dict[0]
    assert from_series[1].indices.tolist() == from_dict[1].indices.tolist()

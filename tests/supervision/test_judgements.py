"""Relevance judgements as supervision (issue 43): Judgements keep their grades, judgements_from
says what it left out, and FILM orders the relevant documents of a query by grade."""
import numpy as np
import pytest

from learnsim.supervision import Judgements, Pairs, judgements_from


def test_judgements_are_pairs_whose_labels_say_relevant_and_which_keep_grades():
    j = Judgements([[4, 0], [4, 1], [5, 2], [5, 3]], grades=[3, 1, 0, -1])
    assert isinstance(j, Pairs) and not j.is_graded          # labelled pairs to every learner
    assert j.labels.tolist() == [True, True, False, False]
    assert j.grades.tolist() == [3.0, 1.0, 0.0, -1.0] and j.is_multilevel
    with pytest.raises(ValueError):
        j.grades[0] = 1.0                                     # read-only, as Pairs' arrays
    with pytest.raises(ValueError, match="grades has 1 entries"):
        Judgements([[1, 0], [2, 0]], grades=[1])
    with pytest.raises(ValueError, match="finite"):
        Judgements([[1, 0]], grades=[np.nan])


def test_judgements_from_counts_what_it_leaves_out_and_matches_numbered_ids():
    texts, j, docs, counts = judgements_from(
        [("001", "reset password"), ("q2", "refund"), ("q3", "nothing relevant")],
        {"1": {"d1": 2, "d2": 0}, "q2": {"d2": 1, "d404": 1}, "q3": {"d1": 0}, "q9": {"d1": 1}},
        {"d1": "how to reset a password", "d2": "refund a charge"})
    assert texts == ["how to reset a password", "refund a charge", "reset password", "refund"]
    assert docs.tolist() == [0, 1]
    assert j.indices.tolist() == [[2, 0], [2, 1], [3, 1]] and j.grades.tolist() == [2.0, 0.0, 1.0]
    assert counts == {"queries": 2, "relevant": 2, "not_relevant": 1, "unknown_document": 1, "unknown_query": 1,
                      "queries_without_relevant": 1}


@pytest.mark.parametrize("queries, qrels, corpus, error, match", [
    ({"q": "a"}, {"q": {"x": 1}}, {"d": "b"}, ValueError, "no judgement names a known query"),
    ({"q": "a"}, {"q": {"d": "high"}}, {"d": "b"}, ValueError, "a grade must be a number"),
    ({"q": "a"}, {"q": {"d": True}}, {"d": "b"}, ValueError, "a grade must be a number"),
    # a grade of 500 digits cannot become a float: refused, not an OverflowError
    ({"q": "a"}, {"q": {"d": 10 ** 500}}, {"d": "b"}, ValueError, "a grade must be a number, finite and at most"),
    ({"q": "a"}, [("q", "d", 1)], {"d": "b"}, TypeError, "qrels must be a mapping"),
    ([("q", "a"), ("q", "b")], {"q": {"d": 1}}, {"d": "b"}, ValueError, "appears twice"),
    ({"q": "a"}, {"q": {"d": 1}}, {"d": 3}, TypeError, "must be a str"),
    ({"q": "a"}, {"q": {"d": 1}}, {}, ValueError, "corpus is empty"),
])
def test_bad_judgements_are_clear_errors(queries, qrels, corpus, error, match):
    with pytest.raises(error, match=match):
        judgements_from(queries, qrels, corpus)


def test_film_orders_a_querys_relevant_documents_by_grade():
    from learnsim.baseline import SearchBaselines
    from learnsim.film.recipe import search_triplets
    from learnsim.text import TextVectorizer

    docs = ["alpha beta gamma", "alpha beta", "alpha delta", "epsilon zeta", "eta theta", "iota kappa"]
    texts = docs + ["alpha query", "epsilon query"]
    P = np.array([[6, 0], [6, 1], [6, 2], [7, 3]])
    grades = np.array([3.0, 2.0, 1.0, 1.0])
    X = TextVectorizer().fit_transform(texts)
    T, counts = search_triplets(P, grades, texts, X, SearchBaselines(texts, np.arange(6)), 0, lambda *a, **k: None)
    graded = {tuple(t) for t in T.tolist() if t[1] in (0, 1, 2) and t[2] in (0, 1, 2)}
    # each relevant document above the lowest grade against one of a lower grade, never the reverse
    assert counts["graded"] == 2 and len(graded) == 2
    assert graded <= {(6, 0, 1), (6, 0, 2), (6, 1, 2)} and (6, 1, 2) in graded


def test_non_ascii_digit_ids_are_text_not_a_crash():
    # str.isdigit says "²" is a digit; int() cannot read it: the id is text, matched as given
    texts, j, _, counts = judgements_from({"²": "reset password", "٧": "refund"}, {"²": {"d1": 1}, "٧": {"d2": 1}},
                                          {"d1": "reset a password", "d2": "refund a charge"})
    assert texts[2:] == ["reset password", "refund"] and counts["queries"] == 2


def test_ids_that_are_one_by_value_are_refused_not_merged():
    # "7" and "007" in one queries file: the Python API attached 007's judgements to query 7
    # (the command line refused the file)
    with pytest.raises(ValueError, match="'7' and '007' are one id to the judgements"):
        judgements_from({"7": "reset password", "007": "refund"}, {"7": {"d1": 1}, "007": {"d2": 1}},
                        {"d1": "reset a password", "d2": "refund a charge"})


def test_qrels_keys_that_are_one_by_value_are_one_query_and_document():
    corpus = {"7": "a fox", "d1": "a cat", "d2": "a cow"}
    # one pair judged twice under two spellings of its ids: it was kept twice, relevant and not
    for qrels in ({"q": {"007": 2, "7": 0}}, {"q": {"d1": 1}, "q ": {"d1": 0}}):
        with pytest.raises(ValueError, match="judged again with grade 0"):
            judgements_from({"q": "fox"}, qrels, corpus)
    # a query's judgements under two spellings are gathered: its negatives were dropped as those
    # of a query without a relevant document
    texts, j, _docs, counts = judgements_from({"7": "fox"}, {"007": {"d1": 1}, "7": {"d2": 0, "d1": 1}}, corpus)
    assert sorted(zip(j.indices[:, 1].tolist(), j.grades.tolist())) == [(1, 1.0), (2, 0.0)]
    assert counts["queries"] == 1 and counts["queries_without_relevant"] == 0 and counts["not_relevant"] == 1

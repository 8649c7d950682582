"""learnsim.evaluation.run_report and per_query_run_measures where the run and the judgements
write ids in two forms (stop 69's sweep): a collection read with its ids as written ("007") and a
run file or a qrels written without the zeros ("7") met nowhere, and every measure was 0."""
from learnsim.evaluation import per_query_run_measures, run_report


def test_ids_in_two_forms_meet_by_value_and_are_counted():
    qrels = {"007": {"0042": 1, "0043": 0}}
    report = run_report({"7": {"42": 1.0, "43": 0.5}}, qrels, ("map",))
    assert report["map"] == 1.0 and report["n_queries"] == 1
    assert report["n_queries_matched_by_value"] == 1 and report["n_documents_matched_by_value"] == 2
    assert report["n_unranked_queries"] == 0


def test_an_id_as_written_comes_first_and_ties_follow_the_runs_own_ids():
    # "7" is judged as written: "007" of the same run does not take its judgements too
    report = run_report({"7": {"a": 1.0}, "007": {"a": 1.0}}, {"7": {"a": 1}}, ("map",))
    assert report["n_queries"] == 1 and report["n_skipped_queries"] == 1
    # trec_eval orders tied documents by their ids as written: "10" before "09"
    assert per_query_run_measures({"q": {"09": 1.0, "10": 1.0}}, {"q": {"10": 1}}, ("map",)) == {"q": {"map": 1.0}}


def test_a_grade_out_of_trec_evals_range_is_refused_as_the_readers_refuse_it():
    import pytest

    run = {"q1": {"d1": 1.0, "d2": 0.5}}
    # 10**400 raised an OverflowError from nDCG's gains; 10**30 was a gain like any other
    for grade in (10**400, 10**30, -(2**31) - 1):
        with pytest.raises(ValueError, match=r"qrels\['q1'\]\['d1'\].*out of range"):
            run_report(run, {"q1": {"d1": grade, "d2": 1}})
    assert run_report(run, {"q1": {"d1": 2**31 - 1, "d2": 1}})["map"] == 1.0

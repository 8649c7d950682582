"""learnsim evaluate's baselines read a collection in its language (--baseline-language to name
it), and say which in baseline_terms."""
import json

import pytest

from conftest import run_cli

DOCS = {"d1": "Les chevaux courent dans le pré avec les enfants",
        "d2": "Les politiques nationales sont discutées à Paris",
        "d3": "Le chat dort sur le canapé pendant que nous travaillons",
        "d4": "Il pleut sur la ville et les rues sont mouillées"}
QUERIES = {"q1": "un cheval", "q2": "la politique nationale"}
QRELS = "q1 0 d1 1\nq2 0 d2 1\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "docs.tsv").write_text("".join(f"{i}\t{t}\n" for i, t in DOCS.items()), encoding="utf-8")
    (tmp_path / "queries.tsv").write_text("qid\ttext\n" + "".join(f"{q}\t{t}\n" for q, t in QUERIES.items()),
                                          encoding="utf-8")
    (tmp_path / "qrels.txt").write_text(QRELS, encoding="utf-8")
    return ["evaluate", "--queries", tmp_path / "queries.tsv", "--qrels", tmp_path / "qrels.txt",
            "--corpus", tmp_path / "docs.tsv", "--json"]


def _report(args):
    code, out, err = run_cli(args)
    assert code == 0, err
    return json.loads(out)


def test_a_french_collections_baselines_read_french_and_say_so(files):
    pytest.importorskip("Stemmer")
    french = _report(files)
    assert "French stop words dropped" in french["baseline_terms"]
    assert "French detected" in french["baseline_terms"]
    english = _report(files + ["--baseline-language", "english"])
    assert english["baseline_terms"].startswith("English stop words dropped, ")
    # "cheval" meets "chevaux" only under French stems: every query finds its document first
    bm25 = french["methods"]["bm25"]
    assert bm25["ndcg@10"] == pytest.approx(1.0)
    assert english["methods"]["bm25"]["ndcg@10"] < bm25["ndcg@10"]
    assert "French given" in _report(files + ["--baseline-language", "fr"])["baseline_terms"]


def test_a_baseline_language_without_a_stop_list_is_one_line_and_status_2(files):
    code, out, err = run_cli(files[:-1] + ["--baseline-language", "klingon"])      # without --json
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--baseline-language must be 'auto'" in err and "Traceback" not in err


def test_evaluates_language_names_the_baselines_language_as_fits_does(files):
    # --language (the baselines' analysis, without a model) names their stop words and stems too,
    # as 'learnsim fit --language' does; --baseline-language wins over it
    assert "French given" in _report(files + ["--language", "fr"])["baseline_terms"]
    english = _report(files + ["--language", "fr", "--baseline-language", "english"])
    assert english["baseline_terms"].startswith("English stop words dropped, ")
    assert "French detected" in _report(files + ["--language", "ko"])["baseline_terms"]   # no Korean list

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


# Turkish product titles: not one stop word, so the collection alone is detected as English
TITLES = {"t1": "Okul çantası mavi", "t2": "Okula dönüş çantaları", "t3": "Çocuk okul ayakkabısı",
          "t4": "Kırmızı kadın ayakkabısı", "t5": "Erkek spor ayakkabıları", "t6": "Spor ayakkabı beyaz",
          "t7": "Mutfak bıçağı seti", "t8": "Çelik mutfak bıçakları", "t9": "Mutfak tencere seti"}
TITLE_LABELS = {"t1": "bag", "t2": "bag", "t3": "bag", "t4": "shoe", "t5": "shoe", "t6": "shoe",
                "t7": "kitchen", "t8": "kitchen", "t9": "kitchen"}


def test_evaluate_reads_the_language_a_model_was_fitted_to_read(tmp_path):
    """A model fitted with --language tr --stop-words auto --stem reads Turkish; evaluated on the
    same titles, which hold no stop word, its baselines were detected as English (English stop
    words, Porter stems): they now read the language the model's vectoriser reads, and say so."""
    pytest.importorskip("Stemmer")
    data = tmp_path / "titles.jsonl"
    data.write_text("".join(json.dumps({"id": i, "text": t, "label": TITLE_LABELS[i]}, ensure_ascii=False) + "\n"
                            for i, t in TITLES.items()), encoding="utf-8")
    model = tmp_path / "tr.npz"
    code, _, err = run_cli(["fit", "--input", data, "--model", model, "--language", "tr", "--stop-words", "auto",
                            "--stem"])
    assert code == 0, err
    code, out, err = run_cli(["evaluate", "--model", model, "--input", data, "--json"])
    assert code == 0, err
    terms = json.loads(out)["baseline_terms"]
    assert "Turkish stop words dropped" in terms and "Turkish Snowball stems" in terms, terms
    assert "as the model reads" in terms or "Turkish" in err, (terms, err)
    # --baseline-language still names another
    code, out, err = run_cli(["evaluate", "--model", model, "--input", data, "--json", "--baseline-language", "en"])
    assert code == 0, err
    assert json.loads(out)["baseline_terms"].startswith("English stop words dropped, ")

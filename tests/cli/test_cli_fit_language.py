"""The language a fit was told (--language, language=) is recorded in the model, and learnsim
evaluate reads its baselines in it, though the fit was given neither --stop-words nor --stem."""
import json

import pytest

from conftest import run_cli

pytestmark = pytest.mark.filterwarnings("ignore:only 3 clusters")

# Turkish product titles: not one stop word, so the collection alone is detected as English
TITLES = {"t1": "Okul çantası mavi", "t2": "Okula dönüş çantaları", "t3": "Çocuk okul ayakkabısı",
          "t4": "Kırmızı kadın ayakkabısı", "t5": "Erkek spor ayakkabıları", "t6": "Spor ayakkabı beyaz",
          "t7": "Mutfak bıçağı seti", "t8": "Çelik mutfak bıçakları", "t9": "Mutfak tencere seti"}
LABELS = {"t1": "bag", "t2": "bag", "t3": "bag", "t4": "shoe", "t5": "shoe", "t6": "shoe",
          "t7": "kitchen", "t8": "kitchen", "t9": "kitchen"}


@pytest.fixture
def titles(tmp_path):
    data = tmp_path / "titles.jsonl"
    data.write_text("".join(json.dumps({"id": i, "text": t, "label": LABELS[i]}, ensure_ascii=False) + "\n"
                            for i, t in TITLES.items()), encoding="utf-8")
    return data


def _fit(data, model, *flags):
    code, _, err = run_cli(["fit", "--input", data, "--model", model, *flags])
    assert code == 0, err


def _baseline_terms(model, data, *flags):
    code, out, err = run_cli(["evaluate", "--model", model, "--input", data, "--json", *flags])
    assert code == 0, err
    return json.loads(out)["baseline_terms"], err


def test_evaluate_reads_the_language_a_model_was_fitted_with_and_nothing_else(titles, tmp_path):
    """fit --language tr alone: the fit's check read Turkish (lexical_language), but the model
    recorded nothing of it, so evaluate detected the titles as English."""
    model = tmp_path / "tr.npz"
    _fit(titles, model, "--language", "tr")
    terms, err = _baseline_terms(model, titles)
    assert terms.startswith("Turkish stop words dropped"), terms
    assert "Turkish" in err and "--language tr" in err, err
    # --baseline-language still names another
    terms, _ = _baseline_terms(model, titles, "--baseline-language", "en")
    assert terms.startswith("English stop words dropped, "), terms


def test_a_model_without_a_language_reads_the_collections_language(titles, tmp_path):
    model = tmp_path / "none.npz"
    _fit(titles, model)
    terms, _ = _baseline_terms(model, titles)
    assert terms.startswith("English stop words dropped, "), terms     # the titles hold no stop word
    # a language of no stop list (Korean: the bigram rule) leaves the collection's, detected
    _fit(titles, tmp_path / "ko.npz", "--language", "ko")
    terms, _ = _baseline_terms(tmp_path / "ko.npz", titles)
    assert terms.startswith("English stop words dropped, "), terms


def test_the_language_is_recorded_and_a_model_saved_before_loads_as_before(tmp_path):
    import learnsim
    from learnsim.text import TextVectorizer

    model = learnsim.fit(list(TITLES.values()), clusters=list(LABELS.values()), language="tr",
                         baseline_holdout=None)
    vectorizer = model.vectorizer
    assert vectorizer.language == "tr"
    path = tmp_path / "m.npz"
    model.save(path)
    assert learnsim.load(path).vectorizer.language == "tr"
    # a state written before the setting existed has no "language": None, as it was fitted
    meta, arrays = vectorizer._get_state()
    del meta["params"]["language"]
    old = TextVectorizer._from_state(meta, arrays)
    assert old.language is None
    assert (old.transform(list(TITLES.values())) != vectorizer.transform(list(TITLES.values()))).nnz == 0
    # nothing of the reading changes with it
    assert learnsim.fit(list(TITLES.values()), clusters=list(LABELS.values()),
                        baseline_holdout=None).vectorizer.language is None

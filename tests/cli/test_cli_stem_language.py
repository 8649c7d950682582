"""--stem (stem=True) with no language named and no stop list stems a collection in its language,
detected as --stop-words auto and the baselines detect it, with a warning naming it: it was
Porter's English stemmer on any language. English collections, LinkLearn's paper reading and
saved models read as before."""
import json
import warnings

import pytest

import learnsim

from conftest import run_cli

pytestmark = pytest.mark.filterwarnings("ignore:only 4 clusters")

FRENCH = ["Les chats dorment sur le canapé pendant que nous travaillons.", "Le chat dort sur le canapé du salon.",
          "Nous mangeons des pommes et des poires au marché.",
          "Les pommes du marché sont délicieuses et nous les mangeons.",
          "Le train pour Paris part de la gare à midi.", "La gare de Lyon accueille les trains nationaux pour Paris.",
          "Elle écrit des lettres à ses amis chaque semaine.", "Ses amis reçoivent les lettres qu'elle écrit."]
ENGLISH = ["The cats are sleeping on the sofa while we work.", "The cat sleeps on the sofa in the living room.",
           "We are eating apples and pears at the market.", "The apples of the market are delicious and we eat them.",
           "The train to Paris leaves the station at noon.", "The station welcomes the national trains to Paris.",
           "She writes letters to her friends every week.", "Her friends receive the letters she writes."]
LABELS = [0, 0, 1, 1, 2, 2, 3, 3]


def _fit(texts, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = learnsim.fit(texts, clusters=LABELS, baseline_holdout=None, **options)
    return model.vectorizer, [str(w.message) for w in caught if "stem" in str(w.message)]


@pytest.mark.parametrize("method", ["mcd", "film"])
def test_stems_alone_stem_a_french_collection_in_french_and_say_so(method):
    pytest.importorskip("Stemmer")
    vectorizer, said = _fit(FRENCH, method=method, stem=True)
    assert (vectorizer.stop_words, vectorizer.stem) == (None, "french")       # was (None, "porter")
    assert len(said) == 1 and "French" in said[0] and "language='en'" in said[0], said
    vocabulary = set(vectorizer.get_feature_names_out())
    assert "chat" in vocabulary and "chats" not in vocabulary
    # a language named keeps its stems: English's Porter where it is English
    vectorizer, said = _fit(FRENCH, method=method, stem=True, language="en")
    assert vectorizer.stem == "porter" and not said


def test_an_english_collection_is_stemmed_by_porter_as_before_without_a_word():
    pytest.importorskip("Stemmer")
    vectorizer, said = _fit(ENGLISH, stem=True)
    assert vectorizer.stem == "porter" and vectorizer.stop_words is None and not said


def test_linklearns_paper_reading_stays_english():
    # paper 002's English stop list and Porter stems are LinkLearn's defaults, --stem or not
    pytest.importorskip("Stemmer")
    texts = FRENCH * 3
    links = [(i, i ^ 1) for i in range(len(texts))]
    for options in ({}, {"stem": True}):
        model = learnsim.fit(texts, links=links, method="linklearn", baseline_holdout=None, **options)
        assert (model.vectorizer.stop_words, model.vectorizer.stem) == ("english", "porter")


def test_learnsim_fit_stem_warns_in_one_line_and_records_the_stems(tmp_path):
    pytest.importorskip("Stemmer")
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps({"text": t, "label": str(y)}, ensure_ascii=False) + "\n"
                            for t, y in zip(FRENCH, LABELS)), encoding="utf-8")
    model = tmp_path / "m.npz"
    code, _, err = run_cli(["fit", "--input", path, "--model", model, "--baseline-holdout", "none", "--stem"])
    assert code == 0, err
    lines = [line for line in err.splitlines() if "French" in line and "stem" in line]
    assert len(lines) == 1 and "--language en" in lines[0], err
    assert learnsim.load(model).vectorizer.stem == "french"


def test_a_borrowed_stemmer_is_named_by_its_own_language():
    # Slovenian has no stemmer of its own and is stemmed by Serbian's Snowball rules: the warning
    # said "stemmed by Slovenian rules ('serbian')", as if Slovenian had rules of its own
    pytest.importorskip("Stemmer")
    slovenian = ["Mesto je poleti polno turistov, ki pridejo tudi pozimi.", "V tem mestu živi več kot milijon ljudi.",
                 "Moja sestra vsak večer bere knjige, ker jih ima rada.", "V starih knjigah so lepi zemljevidi.",
                 "Zdravniki v bolnišnici delajo vso noč in kaj je to.", "Bolnik je čakal zdravnika dve uri.",
                 "Študenti pišejo izpit iz matematike, ko je čas.", "Profesor se je pogovarjal s študentom o tem."]
    vectorizer, said = _fit(slovenian, method="mcd", stem=True)
    assert vectorizer.stem == "serbian", vectorizer.stem
    assert len(said) == 1 and "Serbian rules ('serbian'; Slovenian has no stemmer of its own)" in said[0], said
    vectorizer, said = _fit(FRENCH, method="mcd", stem=True)
    assert "French rules ('french')," in said[0], said

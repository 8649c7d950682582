"""A learned model's vectoriser reads a collection in its language, as its baselines do:
fit(stop_words=) takes any shipped stop list (name or code) or "auto", and stem=True stems with
the fit's language's Snowball stemmer; an English fit reads exactly as before. No French corpus
ships with learnsim: the French texts are hand-written."""
from __future__ import annotations

import pytest

import learnsim
from learnsim.text import TextVectorizer

from conftest import run_cli

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
METHODS = ["mcd", "film"]


def _vectorizer(texts, method="mcd", **options):
    return learnsim.fit(texts, clusters=LABELS, method=method, baseline_holdout=None, **options).vectorizer


def _reading(vectorizer):
    return vectorizer.stop_words, vectorizer.stem


@pytest.mark.parametrize("method", METHODS)
def test_an_english_fit_reads_as_before(method):
    # the vectoriser a fit made before: stop_words None or "english", stem None or "porter"
    assert _reading(_vectorizer(ENGLISH, method)) == (None, None)
    assert _reading(_vectorizer(ENGLISH, method, stop_words="english")) == ("english", None)
    pytest.importorskip("Stemmer")
    for options in ({"stop_words": "english", "stem": True}, {"stop_words": "auto", "stem": True},
                    {"stop_words": "en", "stem": True, "language": "en"}):
        fitted = _vectorizer(ENGLISH, method, **options)
        assert _reading(fitted) == ("english", "porter")
        # every parameter as the vectoriser a fit built before (the others' defaults)
        before = TextVectorizer(fitted.weighting, norm=fitted.norm, stop_words="english", stem="porter",
                                n_components=fitted.n_components, random_state=fitted.random_state,
                                language=options.get("language"))      # the language told, recorded
        assert fitted.get_params() == before.get_params()


@pytest.mark.parametrize("method", METHODS)
def test_a_french_fit_drops_french_stop_words_and_stems_french(method):
    pytest.importorskip("Stemmer")
    assert _reading(_vectorizer(FRENCH, method, stop_words="auto")) == ("french", None)
    assert _reading(_vectorizer(FRENCH, method, stop_words="fr")) == ("french", None)
    assert _reading(_vectorizer(FRENCH, method, language="fr", stem=True)) == (None, "french")
    assert _reading(_vectorizer(FRENCH, method, stop_words="french", stem=True)) == ("french", "french")
    fitted = _vectorizer(FRENCH, method, stop_words="auto", stem=True)
    assert _reading(fitted) == ("french", "french")
    vocabulary = set(fitted.get_feature_names_out())
    assert not vocabulary & {"les", "nous", "sur", "des"}          # French stop words
    assert "chat" in vocabulary and "chats" not in vocabulary      # chats, chat: one stem
    # Porter's rules do not make these one term: the model read French as French
    porter = set(_vectorizer(FRENCH, method, stop_words="auto", stem=True, language="en").get_feature_names_out())
    assert len(porter) > len(vocabulary)


def test_a_saved_french_model_reads_as_fitted(tmp_path):
    pytest.importorskip("Stemmer")
    model = learnsim.fit(FRENCH, clusters=LABELS, baseline_holdout=None, stop_words="auto", stem=True)
    model.save(tmp_path / "m.npz")
    loaded = learnsim.load(tmp_path / "m.npz")
    assert _reading(loaded.vectorizer) == ("french", "french")
    assert (loaded.vectorizer.transform(FRENCH) != model.vectorizer.transform(FRENCH)).nnz == 0


@pytest.mark.parametrize("value", ["klingon", "xx", True, "french, english"])
def test_an_unknown_stop_list_is_an_error_naming_it(value):
    with pytest.raises(ValueError, match="stop_words must be 'auto'.*'french'"):
        learnsim.fit(FRENCH, clusters=LABELS, baseline_holdout=None, stop_words=value)


def _files(tmp_path):
    path = tmp_path / "train.tsv"
    path.write_text("label\ttext\n" + "".join(f"{y}\t{t}\n" for y, t in zip(LABELS, FRENCH)), encoding="utf-8")
    return ["fit", "--input", path, "--model", tmp_path / "m.npz", "--baseline-holdout", "none"]


def test_learnsim_fit_takes_a_language_for_stop_words(tmp_path):
    pytest.importorskip("Stemmer")
    code, out, err = run_cli(_files(tmp_path) + ["--stop-words", "fr", "--stem"])
    assert code == 0, err
    assert _reading(learnsim.load(tmp_path / "m.npz").vectorizer) == ("french", "french")
    code, out, err = run_cli(_files(tmp_path) + ["--stop-words", "auto"])
    assert code == 0, err
    assert _reading(learnsim.load(tmp_path / "m.npz").vectorizer) == ("french", None)


def test_learnsim_fit_refuses_an_unknown_stop_list_in_one_line(tmp_path):
    code, out, err = run_cli(_files(tmp_path) + ["--stop-words", "klingon"])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "--stop-words" in err and "french" in err and "auto" in err and "klingon" in err


def test_relative_and_linklearn_read_the_fits_language():
    pytest.importorskip("Stemmer")
    triplets = [(i, i ^ 1, (i + 2) % 8) for i in range(8)]       # each text nearer its pair's other text
    relative = learnsim.fit(FRENCH, triplets=triplets, method="relative", baseline_holdout=None, stop_words="auto",
                            stem=True)
    assert _reading(relative.vectorizer) == ("french", "french")
    texts = FRENCH * 3
    links = [(i, i ^ 1) for i in range(len(texts))]

    def linklearn(corpus, **options):
        return _reading(learnsim.fit(corpus, links=links, method="linklearn", baseline_holdout=None,
                                     **options).vectorizer)

    assert linklearn(ENGLISH * 3) == ("english", "porter")                 # paper 002's reading, as before
    assert linklearn(texts, language="fr") == (None, None)                 # as before: English rules off
    assert linklearn(texts, language="fr", stem=True) == (None, "french")  # was Porter
    assert linklearn(texts, stop_words="auto") == ("french", "french")


@pytest.mark.parametrize("language", ["xx", "yo", "tlh"])
def test_stems_asked_of_a_language_learnsim_cannot_stem_are_an_error_naming_the_codes(language):
    # it stemmed by Porter's English rules without a word, as if no language had been given
    with pytest.raises(ValueError, match=rf"language='{language}' with stem=True.*\bbg\b.*\bfr\b.*\btr\b"):
        learnsim.fit(FRENCH, clusters=LABELS, baseline_holdout=None, language=language, stem=True)
    # without stems the code still only picks the analyser, the baselines detecting the language
    assert _reading(_vectorizer(FRENCH, language=language)) == (None, None)
    # a stop list named (or "auto": the collection's) names the stems' language, as documented
    pytest.importorskip("Stemmer")
    assert _reading(_vectorizer(FRENCH, language=language, stop_words="fr", stem=True)) == ("french", "french")
    assert _reading(_vectorizer(FRENCH, language=language, stop_words="auto", stem=True)) == ("french", "french")


def test_stems_of_english_japanese_or_chinese_codes_read_as_before():
    pytest.importorskip("Stemmer")
    for language in ("eng", "ja", "zh-Hant"):
        assert _vectorizer(ENGLISH, language=language, stem=True, analyzer="cjk").stem == "porter"


def test_learnsim_fit_refuses_stems_of_an_unknown_language_in_one_line(tmp_path):
    code, out, err = run_cli(_files(tmp_path) + ["--language", "xx", "--stem"])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "--language xx" in err and "--stem" in err and " bg," in err
    assert not (tmp_path / "m.npz").exists()

"""detect_language on text written another way than plain: a collection reads as the same
language in NFC or NFD, in capitals, in full-width letters (as the tokenizer folds them to
ASCII), with invisible characters inside its words; text of no word reads as English."""
from __future__ import annotations

import unicodedata

import pytest

from learnsim.text import Tokenizer, detect_language

SAMPLES = {
    "french": "Les chats dorment sur le canapé pendant que nous travaillons dans la maison avec les enfants.",
    "german": "Die Katzen schlafen auf dem Sofa, während wir im Haus mit den Kindern und dem Hund arbeiten.",
    "spanish": "Los gatos duermen en el sofá mientras nosotros trabajamos en la casa con los niños y el perro.",
    "turkish": "Kediler biz evde çocuklar ve köpekle çalışırken kanepede uyuyorlar ve bu çok güzel bir şey.",
    "greek": "Οι γάτες κοιμούνται στον καναπέ ενώ εμείς δουλεύουμε στο σπίτι με τα παιδιά και τον σκύλο.",
    "russian": "Кошки спят на диване, пока мы работаем в доме с детьми и собакой, и это очень хорошо для нас.",
}


def _fullwidth(text):
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


@pytest.mark.parametrize("language", SAMPLES)
@pytest.mark.parametrize("written", [
    # full-width Latin letters (ＬＥＳ ｃｈａｔｓ) were English to detection, which counted no stop
    # word among them, though the tokenizer reads them as ASCII
    pytest.param(_fullwidth, id="fullwidth"),
    pytest.param(lambda t: unicodedata.normalize("NFD", t), id="nfd"),
    pytest.param(str.upper, id="upper"),
    pytest.param(lambda t: t.replace("e", "e\u00ad"), id="soft-hyphen"),
    pytest.param(lambda t: t.replace(" ", "\u200f "), id="rlm"),
    pytest.param(lambda t: t.replace(" ", "\u00a0"), id="nbsp"),
])
def test_a_collection_written_another_way_reads_as_its_language(language, written):
    assert detect_language([SAMPLES[language]]) == language
    assert detect_language([written(SAMPLES[language])]) == language


def test_fullwidth_text_reads_as_the_tokenizer_reads_it():
    text = _fullwidth(SAMPLES["french"])
    assert Tokenizer()(text) == Tokenizer()(SAMPLES["french"])
    assert detect_language([text, "日本語の文章もある"]) == detect_language([SAMPLES["french"], "日本語の文章もある"])


@pytest.mark.parametrize("texts", [["123 456 7890"], ["👍🏽 😀 🎉"], [""], ["   "], ["\u200d\u00ad\u202e"], ["a b c d e"]])
def test_text_of_no_word_reads_as_english(texts):
    assert detect_language(texts) == "english"


def test_a_text_half_one_language_half_another_reads_as_one_of_them():
    both = SAMPLES["french"] + " " + SAMPLES["german"]
    assert detect_language([both]) in ("french", "german")
    assert detect_language([SAMPLES["german"] + " " + SAMPLES["french"]]) == detect_language([both])

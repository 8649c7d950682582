"""The same words written in NFC and in NFD (an accent apart from its letter, as macOS writes
file names and some keyboards type) read as the same terms, with every reading's settings."""
from __future__ import annotations

import unicodedata

import pytest

from learnsim.text import Tokenizer

TURKISH = [dict(stop_words="turkish"), dict(stop_words="turkish", stem="turkish"), dict(stem="turkish")]


@pytest.mark.parametrize("params", TURKISH)
@pytest.mark.parametrize("text", ["MİLLÎ EĞİTİM", "İKTİSADÎ DİNÎ", "KÂR HÂLÂ", "İSTANBUL IRMAK ÍÌÏ"])
def test_turkish_capitals_read_alike_in_nfc_and_nfd(params, text):
    # Î (I and a circumflex) in NFD read as the dotless ı and a circumflex ('millı̂'), in NFC as î
    tok = Tokenizer(**params)
    nfc, nfd = unicodedata.normalize("NFC", text), unicodedata.normalize("NFD", text)
    assert tok(nfd) == tok(nfc)
    assert [t for _, _, t in tok.spans(nfd)] == [t for _, _, t in tok.spans(nfc)]
    assert all(nfd[a:b] for a, b, _ in tok.spans(nfd))


def test_the_turkish_capital_i_still_reads_as_dotless():
    tok = Tokenizer(stop_words="turkish")
    assert tok("IRMAK IŞIK") == ["ırmak", "ışık"]
    assert tok(unicodedata.normalize("NFD", "MİLLÎ")) == ["millî"]


@pytest.mark.parametrize("params", [{}, dict(stop_words="german", stem="german"), dict(stop_words="french"),
                                    dict(stop_words="greek", stem="greek")])
@pytest.mark.parametrize("text", ["Café naïve résumé", "Straße Äpfel", "Tiếng Việt", "λόγος ᾄδω", "한국어 テレビ ガ",
                                  "क़िताब", "Ångström Ñandú"])
def test_nfc_and_nfd_read_alike(params, text):
    tok = Tokenizer(**params)
    assert tok(unicodedata.normalize("NFD", text)) == tok(unicodedata.normalize("NFC", text))

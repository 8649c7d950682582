"""Texts in a language of no stop list were read as the shipped language whose list happened to
hold a few of their words, and got its stop words and stems: Lorem ipsum as Italian, Virgil's
Latin as Danish (et, vi), a made-up Latin-letter language as Polish (ja, ma). Such a sample holds
the same few words of the winner's list over and over; detect_language now takes the winner only
where the sample holds enough different words of its list (learnsim.text._recognised), else
English, the fallback, with the clause that says so. Shipped languages' prose is read as before,
and so is a short text (a query)."""
from __future__ import annotations

import pytest

from learnsim.text import detect_language
from learnsim.text._described import describe_unrecognised

LOREM = ("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et "
         "dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip "
         "ex ea commodo consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu "
         "fugiat nulla pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt "
         "mollit anim id est laborum.")
LATIN = ("Arma virumque cano, Troiae qui primus ab oris Italiam, fato profugus, Laviniaque venit litora, multum "
         "ille et terris iactatus et alto vi superum saevae memorem Iunonis ob iram; multa quoque et bello passus, "
         "dum conderet urbem, inferretque deos Latio, genus unde Latinum, Albanique patres, atque altae moenia "
         "Romae. Musa, mihi causas memora, quo numine laeso, quidve dolens, regina deum tot volvere casus.")
MADE_UP = ("Vana telo kiru mas ja vento dorim. Kiru sela pofa mas toli vanu, ja telo misa grenu kavo. Sela "
           "vento bira toli ma kiru, vanu misa telo nefa mas sela duvo. Toli ja kiru vana, rombi tesu lavi sela "
           "misa vento zurak. Vanu peli ma toli hosa, kiru mas vana ja telo misa fendo, lubra kiru nagi sepo.")

SHIPPED = {
    "french": "Le matin, les enfants vont à l'école avec leurs amis. Ils apprennent à lire et à écrire, puis ils "
              "jouent dans la cour pendant que les maîtres parlent entre eux de la journée qui vient.",
    "german": "Am Morgen gehen die Kinder mit ihren Freunden in die Schule. Sie lernen lesen und schreiben, und dann "
              "spielen sie auf dem Hof, während die Lehrer über den Tag sprechen, der vor ihnen liegt.",
    "spanish": "Por la mañana los niños van a la escuela con sus amigos. Aprenden a leer y a escribir, y después "
               "juegan en el patio mientras los maestros hablan entre ellos del día que tienen por delante.",
    "italian": "Al mattino i bambini vanno a scuola con i loro amici. Imparano a leggere e a scrivere, e poi "
               "giocano nel cortile mentre gli insegnanti parlano tra loro della giornata che li aspetta.",
    "dutch": "In de ochtend gaan de kinderen met hun vrienden naar school. Ze leren lezen en schrijven, en daarna "
             "spelen ze op het plein terwijl de leraren met elkaar praten over de dag die voor hen ligt.",
    "swedish": "På morgonen går barnen till skolan med sina vänner. De lär sig att läsa och skriva, och sedan leker "
               "de på gården medan lärarna talar med varandra om dagen som ligger framför dem.",
    "swahili": "Watoto wengi wanapenda kucheza mpira baada ya shule. Mwalimu wao aliwaambia kwamba lazima wasome "
               "vitabu kila siku ili wapate elimu nzuri. Wazazi wao pia wanataka watoto wafanikiwe maishani na "
               "wawasaidie wengine katika jamii yao.",
    "english": "In the morning the children go to school with their friends. They learn to read and to write, and "
               "then they play in the yard while the teachers talk with each other about the day ahead of them.",
}


@pytest.mark.parametrize("text", [LOREM, LATIN, MADE_UP], ids=["lorem", "latin", "made-up"])
def test_a_language_of_no_list_reads_as_unrecognised(text):
    from learnsim.text._languages import _detect

    assert _detect([text])[0] != "english"      # what the lists alone read it as (Italian, Danish, Polish)
    assert detect_language([text]) == "english"
    said = describe_unrecognised([text])
    assert said is not None and "not recognised" in said, said
    # truthful: a list held 5 % of their words, but few different ones
    assert "too few to tell" in said and "holds 5%" not in said, said
    # a collection of such texts too
    assert detect_language([text, text.upper(), text.lower()]) == "english"


@pytest.mark.parametrize("language", sorted(SHIPPED))
def test_shipped_languages_prose_is_still_detected(language):
    text = SHIPPED[language]
    assert len(text.split()) >= 25
    assert detect_language([text]) == language
    assert describe_unrecognised([text]) is None


@pytest.mark.parametrize("query, language", [
    ("le chat noir", "french"), ("der Hund und die Katze", "german"), ("los niños de la casa", "spanish"),
    ("het huis van", "dutch"), ("the cat", "english")])
def test_a_short_query_reads_as_before(query, language):
    # a query of 2-5 words holds too few words to tell: the lists alone read it, as before, so a
    # collection of such texts is read as the lists read it too
    from learnsim.text._languages import _detect

    assert detect_language([query]) == _detect([query])[0] == language
    assert detect_language([query] * 3) == language

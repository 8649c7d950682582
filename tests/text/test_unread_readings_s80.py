"""How the lexical baselines read languages learnsim has no list of, measured on hand-made
known-item collections (each document an item; its query names it by other forms of its words, as
a user types them: plural, indefinite, radical, a place without its locative).

A language detected as none of the lists is read by English's rules (scikit-learn's stop words,
Porter's stems): on Welsh and Zulu these touch almost no word (Porter's -s, -ing, -ed endings are
rare in them, and few of their words are English stop words), and the reading costs little or
nothing against none (this test's Welsh collection 0.332 against 0.349, 0.354 against 0.361 over 3
seeds of 100 documents; Zulu 0.236 both;
Uzbek, Icelandic, Albanian, Azerbaijani, which the letters put out of their neighbours' contest,
equal to the unstemmed reading), so it stays as it was. A language detected as a neighbour is
stemmed by the neighbour's rules, which join its forms where the two inflect alike: Luxembourgish
read as German 0.659 against 0.377 unstemmed, Somali read as Italian 0.315 against 0.181; they
stay so too. The collections are built here from the words of each language."""
import random

import numpy as np
import pytest

from learnsim.baseline import LexicalBaselines
from learnsim.text import detect_language


def _pairs(words):
    return [tuple(w.split("/")) if "/" in w else (w, w) for w in words.split(", ")]


LANGUAGES = {
    "welsh": dict(
        subj="Siôn, Megan, Dafydd, Elin, Gareth, Nia, Rhys, Catrin, Owain, Lowri, Iwan, Sioned".split(", "),
        verb=_pairs("Prynodd/prynu, Gwelodd/gweld, Daeth â/dod, Gwerthodd/gwerthu, Chwiliodd am/chwilio, "
                    "Gwnaeth/gwneud, Cododd/codi, Benthycodd/benthyg"),
        noun=_pairs("lyfr/llyfr, gar/car, dŷ/tŷ, bysgodyn/pysgodyn, ddillad/dillad, esgidiau/esgid, gadair/cadair, "
                    "fwrdd/bwrdd, reis, gig/cig, fara/bara, ffôn, feic/beic, gi/ci, gyw iâr/cyw iâr, gyllell/cyllell"),
        loc=_pairs("siop, ysgol, ysbyty, swyddfa, farchnad/marchnad, eglwys"),
        city=_pairs("Nghaerdydd/Caerdydd, Mangor/Bangor, Nghaerfyrddin/Caerfyrddin, Nhywyn/Tywyn, Mhwllheli/Pwllheli, "
                    "Ninbych/Dinbych, Nghonwy/Conwy, Llandudno, Aberystwyth, Abertawe"),
        doc="{v} {s} {n} newydd yn y {l} yn {c} ddoe, ac roedd yn hapus iawn.", q="{v} {n} {l} {c}"),
    "zulu": dict(
        subj="uSipho, uThandi, uBongani, uNomsa, uMandla, uZanele, uThabo, uLindiwe, uSifiso, uNandi".split(", "),
        verb=_pairs("uthenge/thenga, ubone/bona, ulethe/letha, uthengise/thengisa, ufune/funa, wakha/akha, "
                    "uthathe/thatha, uboleke/boleka"),
        noun=_pairs("incwadi, imoto, indlu, inhlanzi, izingubo/ingubo, izicathulo/isicathulo, isihlalo, itafula, "
                    "irayisi, inyama, isinkwa, ifoni, ibhayisikili, inja, inkukhu, ummese"),
        loc=_pairs("esikoleni/isikole, emakethe/imakethe, esibhedlela/isibhedlela, ehhovisi/ihhovisi, "
                   "esontweni/isonto, esitolo/isitolo"),
        city=_pairs("eThekwini/Thekwini, eGoli/Goli, ePitoli/Pitoli, eMgungundlovu/Mgungundlovu, eMpangeni/Mpangeni, "
                    "eNquthu/Nquthu, eVryheid/Vryheid, eMthatha/Mthatha, eNewcastle/Newcastle, eLadysmith/Ladysmith"),
        doc="Izolo {s} {v} {n} {l} {c}, futhi ujabule kakhulu ngalokho.", q="{v} {n} {l} {c}"),
    "luxembourgish": dict(
        subj="de Jang, d'Marie, de Pit, d'Anne, de Jos, d'Josée, de Mett, d'Liliane, de Fernand, d'Nathalie".split(", "),
        verb=_pairs("kaf, gesinn, bruecht, verkaf, gesicht, gebaut, geholl, geléint"),
        noun=_pairs("Buch/Bicher, Auto/Autoen, Haus/Haiser, Fësch, Kleed/Kleeder, Schong, Stull/Still, Dësch/Dëscher, "
                    "Rais, Fleesch, Brout/Brouder, Telefon/Telefonen, Vëlo/Vëloen, Hond/Hënn, Hong/Hénger, "
                    "Messer/Messeren"),
        loc=_pairs("Geschäft/Geschäfter, Schoul/Schoulen, Spidol/Spideeler, Büro/Bürosen, Kierch/Kierchen, Maart/Mäert"),
        city=_pairs("Esch, Diekirch, Ettelbréck, Déifferdeng, Diddeleng, Wolz, Clierf, Réimech, Iechternach, Stroossen"),
        doc="Gëschter huet {s} en neit {n} am {l} zu {c} {v}, an dat huet hie ganz frou gemaach.",
        q="{n} {l} {c}"),
}


def _collection(language, n=100, seed=0):
    words = LANGUAGES[language]
    rng = random.Random(seed)
    seen, documents, queries = set(), [], []
    while len(documents) < n:
        s = rng.choice(words["subj"])
        v, noun, loc, city = (rng.choice(words[k]) for k in ("verb", "noun", "loc", "city"))
        if (noun, loc, city) in seen:
            continue
        seen.add((noun, loc, city))
        documents.append(words["doc"].format(s=s, v=v[0], n=noun[0], l=loc[0], c=city[0]))
        queries.append(words["q"].format(v=v[1], n=noun[1], l=loc[1], c=city[1]))
    return documents, queries


def _mrr(documents, queries, monkeypatch=None, unstemmed=False, language=None):
    """Known-item MRR of BM25 (query i's item is document i; a tie shares its places), and the
    language the baselines read; ``unstemmed``: no stop words and no stems, whatever the language."""
    if unstemmed:
        import learnsim.text as text

        monkeypatch.setattr(text, "baseline_reading", lambda language, installed=None: (None, None))
    lex = LexicalBaselines(documents, language=language)
    S = lex.scores("bm25", lex.query_counts(queries))
    rr = [0.0 if S[i, i] <= 0 else 1.0 / (1 + (S[i] > S[i, i]).sum() + 0.5 * ((S[i] == S[i, i]).sum() - 1))
          for i in range(len(queries))]
    return float(np.mean(rr)), lex.language


@pytest.mark.parametrize("language", ["welsh", "zulu"])
def test_english_rules_cost_an_unread_language_nothing_measurable(language, monkeypatch):
    pytest.importorskip("Stemmer")
    documents, queries = _collection(language)
    english, read = _mrr(documents, queries)
    assert read == "english"                          # the reading of a language of no list
    with monkeypatch.context() as m:
        unstemmed, _ = _mrr(documents, queries, m, unstemmed=True)
    assert english >= unstemmed - 0.03


def test_a_neighbours_stems_join_the_forms_of_a_language_read_as_it(monkeypatch):
    pytest.importorskip("Stemmer")
    documents, queries = _collection("luxembourgish")
    # (read as German before learnsim.text._recognised: its documents, written to one template,
    # hold 3 different words of German's list (am, zu, an) in 63, and it now reads as a language
    # of no list: --language de gives it German's stems)
    german, read = _mrr(documents, queries, language="german")
    assert read == "german"
    with monkeypatch.context() as m:
        unstemmed, _ = _mrr(documents, queries, m, unstemmed=True)
    assert german > unstemmed + 0.1


def test_the_collections_are_of_their_languages():
    # (not of a list's language by accident: each is read as the tests above say)
    assert detect_language(_collection("welsh")[0]) == "english"
    # (German before learnsim.text._recognised: 3 different words of its list in 63)
    assert detect_language(_collection("luxembourgish")[0]) == "english"

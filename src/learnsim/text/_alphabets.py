"""The letters each language of the stop lists writes, so that a text in a language learnsim does
not read is not read as a neighbour whose stop words it happens to share.

A stop list's share alone reads Icelandic (og, er, var) as Danish, Albanian (ne, me) as French,
Azerbaijani (bu, biz) as Turkish, Maltese (il, ta) as French, Uzbek (va) as Romanian, Mongolian
(том) as Russian, and gives them that language's stems. Each of them writes, in nearly every
sentence, letters that language never does: Icelandic's ð þ, Albanian's ë, Azerbaijani's ə,
Maltese's ħ ġ ċ, Uzbek's ʻ, Mongolian's ө ү.
A language is therefore out of the contest where more than a few of a sample's letters are
letters of its script it never writes (:func:`contradicted`): what Lucene's and CLD's detectors
weigh first, a script's letters, and what learnsim already asks of Ukrainian and Bulgarian
(``_languages._cyrillic_contest``).

Each alphabet holds the letters beyond a-z (lower case) that the language writes, its loans and
common foreign names included (German's é of Café, Danish's ä ö ü of German names), so that a
text of the language that names a foreign place is read as before. Letters a language writes in a
handful of words only (French's ë of Noël) are left out: a sample of that language writes them
far below the bound. A language not named here (English, the fallback; Vietnamese, whose
letters are too many to list; Greek; a language added later) is never put out by its letters.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache

# beyond a-z, in lower case; Cyrillic ones whole (their script has no common core as a-z is)
_LATIN = {
    "danish": "æøåéäöü",
    "dutch": "äçéèêëïöü",
    "finnish": "äöåšžéü",
    "french": "àâæçéèêîïôœùûüÿ",
    "german": "äöüßàáâçéèêîïóôòúû",
    "hungarian": "áéíóöőúüű",
    "italian": "àáèéìíîòóùú",
    "norwegian": "æøåéèóòôäöü",
    "portuguese": "áâãàçéêíóôõúü",
    "spanish": "áéíóúüñ",
    "swedish": "åäöéüæø",
    "czech": "áčďéěíňóřšťúůýžäöü",
    "polish": "ąćęłńóśźżäöüé",
    "slovak": "áäčďéíĺľňóôŕšťúýžöü",
    "turkish": "çğıöşüâîû",
    "indonesian": "é",
    "romanian": "ăâîșțşţé",
    "catalan": "àéèíïòóúüç",
    "serbian": "čćđšž",
    "lithuanian": "ąčęėįšųūž",
    "latvian": "āčēģīķļņšūžōŗ",
    "estonian": "äöõüšž",
    "swahili": "",
    "basque": "ñüç",
    "irish": "áéíóú",
    "afrikaans": "áàâäéèêëíìîïóòôöúùûü",
    "tagalog": "ñáàâéèêíìîóòôúùû",
    "galician": "áéíóúñüï",
    # Slovenian's č š ž, and the ć đ of its neighbours' names (Croatian's, Serbian's)
    "slovenian": "čšžćđ",
    "esperanto": "ĉĝĥĵŝŭ",
    # Hausa's hooked ɓ ɗ ƙ ƴ, and the tone and length marks of its dictionaries and schoolbooks
    "hausa": "ɓɗƙƴàáâèéêìíîòóôùúû",
}
# the Cyrillic languages of the lists (Russian, Ukrainian, Bulgarian, Serbian, and Belarusian's ў,
# Macedonian's ѓ ќ ѕ) are told apart by _languages._cyrillic_contest; against the Cyrillic of
# the languages learnsim does not read (Kazakh's, Kyrgyz's, Mongolian's ө ү ң қ ғ һ ә) they write
# one alphabet, а to џ and ґ
_CYRILLIC_LISTS = "".join(map(chr, range(0x0430, 0x0460))) + "\u0491"
_CYRILLIC = {name: _CYRILLIC_LISTS for name in ("russian", "ukrainian", "bulgarian", "serbian", "macedonian",
                                                "belarusian")}
# the letters some language of the lists writes: Vietnamese's (its vowels with their tones,
# U+1EA0 to U+1EF9, and ă ơ ư đ) with the alphabets above
_KNOWN = frozenset("".join(_LATIN.values()) + "".join(map(chr, range(0x1EA0, 0x1EFA))) + "ăơưđ" + _CYRILLIC_LISTS)
#: A text contradicts a language where more than this share of its letters (and one at least)
#: are letters of the language's script that it never writes: a foreign name in a long text of the
#: language is fewer; a sentence of an unread language writes them in one letter of forty to ten.
MAX_FOREIGN_SHARE = 0.01
#: A language contests a sample only where at most this share of its texts contradict it: a
#: collection of the language with a few texts of another (a Turkish sentence among Spanish ones,
#: a Vietnamese one, whose every syllable writes letters Spanish never does) is read as before.
MAX_CONTRADICTING_TEXTS = 0.5
# what no language of a contest can be contradicted by, left out before a text's letters are
# counted one by one: ASCII, and the Cyrillic letters that every Cyrillic language of the lists writes
_NEVER_FOREIGN = re.compile("[\x00-\x7f\u0430-\u045f\u0491]+")
_NON_LETTERS = re.compile(r"[\W\d_]+")


@lru_cache(maxsize=4096)
def _script(ch):
    """"latin" or "cyrillic" for a non-ASCII letter of those scripts, else None."""
    if not ch.isalpha():
        return None
    name = unicodedata.name(ch, "")
    # (ʼ, MODIFIER LETTER APOSTROPHE, is an apostrophe as some keyboards type it, in any language)
    if name.startswith(("LATIN ", "MODIFIER LETTER ")) and ch != "\u02bc":
        return "latin"
    if name.startswith("CYRILLIC "):
        return "cyrillic"
    return None


def contradicted(texts, contest):
    """The languages of ``contest`` that more than :data:`MAX_CONTRADICTING_TEXTS` of ``texts``
    (those that hold a letter) contradict: more than :data:`MAX_FOREIGN_SHARE` of a text's
    letters are letters of the language's script that it never writes (two at least, or one
    that no language of the lists writes)."""
    names = [(name, alphabets[name], script) for name in contest
             for script, alphabets in (("latin", _LATIN), ("cyrillic", _CYRILLIC)) if name in alphabets]
    against, n_texts = Counter(), 0
    for text in texts:
        rest = _NEVER_FOREIGN.sub("", text.lower())
        if not rest:
            n_texts += any(c.isalpha() for c in text)
            continue
        n_texts += 1
        by_script = {"latin": {}, "cyrillic": {}}
        for ch, n in Counter(rest).items():
            script = _script(ch)
            if script:
                by_script[script][ch] = n
        letters = None
        for name, alphabet, script in names:
            foreign = {ch: n for ch, n in by_script[script].items() if ch not in alphabet}
            # one letter another language of the lists writes may be a name of that language
            # (a Croatian Žižek in a Dutch text): two, or one that none of them writes
            if not foreign or (sum(foreign.values()) < 2 and foreign.keys() <= _KNOWN):
                continue
            if letters is None:
                # (counted only here: a text of the language writes none of them)
                letters = len(_NON_LETTERS.sub("", text))
            if sum(foreign.values()) > MAX_FOREIGN_SHARE * letters:
                against[name] += 1
    return {name for name, n in against.items() if n > MAX_CONTRADICTING_TEXTS * n_texts}

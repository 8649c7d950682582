"""Stop words and Snowball stems of the languages written with spaces: the lists shipped with
learnsim, the stemmers PyStemmer has, and which of them a collection is written in.

A user of bm25s with a French collection writes ``bm25s.tokenize(texts, stopwords="fr",
stemmer=Stemmer.Stemmer("french"))``; learnsim's lexical baselines read such a collection the
same way (:func:`baseline_reading`), where they read every text as English before.

The stop lists (``stopwords/<language>.txt``) are the Snowball project's (snowballstem.org,
BSD-3-Clause; ``stopwords/LICENSE``), as PostgreSQL ships them: the lists written for the
Snowball stemmers of the same names, so that a list and its stemmer agree. English keeps
scikit-learn's ``ENGLISH_STOP_WORDS`` (what ``stop_words="english"`` always was).
"""
from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from pathlib import Path

__all__ = ["STOP_LANGUAGES", "SNOWBALL_LANGUAGES", "stop_list", "load_stemmer", "detect_language",
           "check_language", "baseline_reading"]

#: The languages whose stop list ships with learnsim (``stop_words=<name>``), English included.
STOP_LANGUAGES = ("danish", "dutch", "english", "finnish", "french", "german", "hungarian", "italian",
                  "norwegian", "portuguese", "russian", "spanish", "swedish")
#: PyStemmer 3's Snowball stemmers (``stem=<name>``): named here so that a name is checked, and
#: a known one without PyStemmer says to install it, whether or not PyStemmer is installed.
SNOWBALL_LANGUAGES = ("arabic", "armenian", "basque", "catalan", "czech", "danish", "dutch", "dutch_porter",
                      "english", "esperanto", "estonian", "finnish", "french", "german", "greek", "hindi",
                      "hungarian", "indonesian", "irish", "italian", "lithuanian", "nepali", "norwegian", "persian",
                      "polish", "porter", "portuguese", "romanian", "russian", "serbian", "sesotho", "spanish",
                      "swedish", "tamil", "turkish", "yiddish")
# ISO 639-1 codes of the languages above (--language fr), as bm25s names its stop lists
_CODES = {"da": "danish", "nl": "dutch", "en": "english", "fi": "finnish", "fr": "french", "de": "german",
          "hu": "hungarian", "it": "italian", "no": "norwegian", "nb": "norwegian", "nn": "norwegian",
          "pt": "portuguese", "ru": "russian", "es": "spanish", "sv": "swedish"}
_FOLDER = Path(__file__).with_name("stopwords")


@lru_cache(maxsize=None)
def stop_list(language):
    """The stop words of ``language`` (a name of :data:`STOP_LANGUAGES`), a frozenset of
    lower-case words.

    Examples
    --------
    >>> from learnsim.text import stop_list
    >>> {"le", "nous", "été"} <= stop_list("french")
    True
    """
    if language == "english":
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        return frozenset(ENGLISH_STOP_WORDS)
    if language not in STOP_LANGUAGES:
        raise ValueError(f"stop_words must be None, one of {', '.join(map(repr, STOP_LANGUAGES))} or an iterable of "
                         f"words; got {language!r}")
    lines = (_FOLDER / f"{language}.txt").read_text(encoding="utf-8").splitlines()
    return frozenset(w.strip().lower() for w in lines if w.strip() and not w.startswith("#"))


def load_stemmer(stem):
    """PyStemmer's stemmer of ``stem`` (None, ``"porter"`` or a Snowball language name), or
    None; a ValueError for a name no Snowball stemmer has, an ImportError naming the package
    where PyStemmer is missing."""
    if stem is None:
        return None
    if not isinstance(stem, str) or stem not in SNOWBALL_LANGUAGES:
        raise ValueError(f"stem must be None, 'porter' or a Snowball language PyStemmer knows "
                         f"({', '.join(n for n in SNOWBALL_LANGUAGES if n != 'porter')}); got {stem!r}")
    try:
        import Stemmer
    except ImportError:
        raise ImportError(f"stem={stem!r} needs the PyStemmer package: pip install learnsim[stem] "
                          "(or pip install PyStemmer)") from None
    if stem not in Stemmer.algorithms():
        # an older PyStemmer without this language
        raise ImportError(f"stem={stem!r}: the installed PyStemmer {Stemmer.version()} has no such stemmer; "
                          "pip install -U PyStemmer") from None
    return Stemmer.Stemmer(stem)


def check_language(language, what="language"):
    """The language a baseline reads (a name of :data:`STOP_LANGUAGES`) for ``language``: a
    name, an ISO 639-1 code (``"fr"``, ``"de-CH"``), or ``"auto"`` / None (returned as None:
    detect it); a ValueError otherwise."""
    if language is None or language == "auto":
        return None
    if isinstance(language, str):
        name = language.strip().lower()
        if name in STOP_LANGUAGES:
            return name
        code = name.replace("_", "-").split("-")[0]
        if code in _CODES:
            return _CODES[code]
    raise ValueError(f"{what} must be 'auto', one of {', '.join(map(repr, STOP_LANGUAGES))} or its two-letter "
                     f"code; got {language!r}")


# the words the baselines' tokenizer reads (two word characters or more, digits inside kept):
# letters alone would cut "t5w6" into "t" and "w", and French's elided "t" (t') and "s" made a
# collection of codes French
_WORD = re.compile(r"\w\w+")
# the texts and the characters of each read to detect a language: enough words for the rates of
# stop words to settle (a few thousand), bounded on a large collection
_DETECT_TEXTS, _DETECT_CHARS = 500, 1000
#: Below this share of a collection's words in any stop list, it is not read as prose of one of
#: these languages (titles, codes, another script), and stays English, as it was read before.
MIN_STOP_SHARE = 0.05


def detect_language(texts):
    """The language of :data:`STOP_LANGUAGES` whose stop words make the largest share of the
    words of ``texts`` (up to 500 texts spread over the collection, the first 1,000 characters
    of each), or ``"english"`` where no list reaches 5 % of them.

    English is compared by scikit-learn's list, larger than the others (318 words against
    94 to 313): a tie goes to English, and an English collection is read as it always was.

    Examples
    --------
    >>> from learnsim.text import detect_language
    >>> detect_language(["Les chats dorment sur le canapé pendant que nous travaillons."])
    'french'
    >>> detect_language(["The cats sleep on the sofa while we work."])
    'english'
    """
    texts = list(texts)
    step = max(1, len(texts) // _DETECT_TEXTS)
    counts = Counter()
    for text in texts[::step][:_DETECT_TEXTS]:
        if isinstance(text, str):
            counts.update(_WORD.findall(text[:_DETECT_CHARS].lower()))
    total = sum(counts.values())
    if not total:
        return "english"
    shares = {name: sum(counts[w] for w in stop_list(name) if w in counts) / total for name in STOP_LANGUAGES}
    best = max(STOP_LANGUAGES, key=lambda name: (shares[name], name == "english"))
    return best if shares[best] >= MIN_STOP_SHARE else "english"


def baseline_reading(language, stemmer_installed=None):
    """(stop_words, stem) of the lexical baselines reading ``language`` (a name of
    :data:`STOP_LANGUAGES`): English's stop list and Porter stems for English (as they always
    were), the language's Snowball list and stemmer for another; no stems without PyStemmer."""
    if stemmer_installed is None:
        from importlib.util import find_spec

        stemmer_installed = find_spec("Stemmer") is not None
    if language == "english":
        return "english", "porter" if stemmer_installed else None
    return language, language if stemmer_installed else None

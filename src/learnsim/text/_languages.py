"""Stop words and Snowball stems of the languages written with spaces: the lists shipped with
learnsim, the stemmers PyStemmer has, and which of them a collection is written in.

A user of bm25s with a French collection writes ``bm25s.tokenize(texts, stopwords="fr",
stemmer=Stemmer.Stemmer("french"))``; learnsim's lexical baselines read such a collection the
same way (:func:`baseline_reading`), where they read every text as English before.

The stop lists (``stopwords/<language>.txt``) are the Snowball project's (snowballstem.org,
BSD-3-Clause; ``stopwords/LICENSE``), as PostgreSQL ships them: the lists written for the
Snowball stemmers of the same names, so that a list and its stemmer agree. English keeps
scikit-learn's ``ENGLISH_STOP_WORDS`` (what ``stop_words="english"`` always was). Arabic's and
Hindi's lists are python-stop-words' (BSD-3-Clause, less a few words that carry meaning:
``stopwords/arabic.txt``, ``hindi.txt``), Persian's stopwords-iso's (MIT, ``persian.txt``);
Turkish's, Greek's, Romanian's and Catalan's stopwords-iso's and Indonesian's python-stop-words'
(less the entries that are no word, carry meaning or are common in English text and web pages),
stemmed by Snowball's stemmers of the same names;
Arabic, Hindi and Persian are stemmed by Lucene's light stemmers (``stem="arabic_light"``,
``"hindi_light"``, ``"persian_light"``, :mod:`._arabic`, :mod:`._hindi`, :mod:`._persian`, pure
Python) and detected by their script first (:func:`detect_language`). Urdu's list is urduhack's
and Hebrew's spaCy's (MIT, ``urdu.txt``, ``hebrew.txt``); both are detected by their script and
read with no stemmer (Lucene and Snowball have none for them). Czech's list is
python-stop-words' too (``czech.txt``), its stems Lucene's light stemmer (``"czech_light"``,
:mod:`._czech`), and so are Bulgarian's (``"bulgarian_light"``, :mod:`._bulgarian`); Ukrainian's,
Polish's and Slovak's lists are python-stop-words' as well. These are detected by their stop
words, as the Snowball languages are, Russian, Ukrainian and Bulgarian told apart by their letters
first (:func:`_cyrillic_contest`).
Bengali, Tamil, Telugu and Armenian are detected by their scripts (and the Indic ones by their stop
words too), Marathi and Nepali by their stop words where Devanagari is not Hindi
(:func:`_indic_armenian_language`). Bengali's, Marathi's and Armenian's lists are stopwords-iso's,
Tamil's and Nepali's Lucene's (Apache-2.0), Telugu's learnsim's own; Bengali and Telugu are
stemmed by ports of Lucene's light stemmers (``"bengali_light"``, ``"telugu_light"``,
:mod:`._bengali`, :mod:`._telugu`), Tamil, Nepali and Armenian by Snowball's, Marathi not at all.
Serbian (Croatian and Bosnian with it) takes stopwords-iso's Croatian list, written in both
scripts (``serbian.txt``), and Snowball's Serbian stemmer, which reads Cyrillic as Latin.
Lithuanian's and Latvian's lists are stopwords-iso's; Lithuanian is stemmed by Snowball's stemmer,
Latvian by Lucene's light stemmer (``"latvian_light"``, :mod:`._latvian`); Estonian's list is
stopwords-iso's too, stemmed by Snowball's Estonian stemmer.
Vietnamese's list is stopwords-iso's one-syllable entries
(``vietnamese.txt``), detected by its stop words and not stemmed (it inflects no word); Swahili's
stopwords-iso's (``swahili.txt``), not stemmed either (no Lucene or Snowball stemmer). Basque's
and Irish's are stopwords-iso's (``basque.txt``, ``irish.txt``), stemmed by Snowball's stemmers;
Afrikaans's stopwords-iso's (``afrikaans.txt``), stemmed by Snowball's Dutch stemmer and told
from Dutch by the words only each writes (:func:`_afrikaans_contest`). Tagalog's list is
stopwords-iso's (``tagalog.txt``), not stemmed (no Lucene or Snowball stemmer). Galician's is
stopwords-iso's (``galician.txt``), stemmed by Snowball's Portuguese stemmer and told from
Portuguese by what only each writes (:func:`_galician_contest`).
Slovenian's list is stopwords-iso's, Macedonian's spaCy's, Belarusian's learnsim's own; none of them
has a stemmer of its own, and each takes its closest neighbour's (Serbian's, Lucene's Bulgarian
light stemmer, Russian's); Macedonian and Belarusian are told from the other Cyrillic languages by
their letters first (:func:`_cyrillic_contest`). Esperanto's is stopwords-iso's
(``esperanto.txt``), stemmed by Snowball's Esperanto stemmer and contesting a sample only where it
writes Esperanto's own words or letters (:func:`_esperanto_contest`). A language of no list is
not read as a neighbour whose letters it contradicts (:mod:`._alphabets`). Sorani (Central Kurdish)
takes stopwords-iso's Kurdish list, written in its Arabic script (``sorani.txt``), and Lucene's
Sorani normaliser and light stemmer (``"sorani_light"``, :mod:`._sorani`), detected by its script
and stop words (:func:`_is_sorani`). Hausa's list is stopwords-iso's (``hausa.txt``), not stemmed
(no Lucene or Snowball stemmer), and it contests a sample only where it writes Hausa's own words
(:func:`_hausa_contest`).
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache
from pathlib import Path

from ._script_folds import fold_devanagari_anusvara

__all__ = ["STOP_LANGUAGES", "SNOWBALL_LANGUAGES", "LIGHT_STEMMERS", "stop_list", "load_stemmer",
           "detect_language", "check_language", "baseline_reading"]

#: The languages whose stop list ships with learnsim (``stop_words=<name>``), English included.
#: Those added later come after the first sixteen, so that a tie of stop-word shares with one of
#: those keeps the reading it had (detect_language: the first of the tied, its letters aside).
STOP_LANGUAGES = ("arabic", "danish", "dutch", "english", "finnish", "french", "german", "hindi", "hungarian",
                  "italian", "norwegian", "persian", "portuguese", "russian", "spanish", "swedish",
                  "hebrew", "urdu", "czech", "bulgarian", "ukrainian", "polish", "slovak",
                  "turkish", "greek", "indonesian", "romanian", "catalan",
                  "bengali", "tamil", "telugu", "marathi", "nepali", "armenian",
                  "serbian",
                  "lithuanian",
                  "latvian",
                  "estonian",
                  "vietnamese",
                  "swahili",
                  "basque",
                  "irish",
                  "afrikaans",
                  "tagalog",
                  "galician",
                  "slovenian", "macedonian", "belarusian",
                  "esperanto",
                  "sorani",
                  "hausa")
# the languages detected by their script first, not by the share of their stop words alone
_SCRIPT_LANGUAGES = ("arabic", "hindi", "persian", "hebrew", "urdu",
                     "bengali", "tamil", "telugu", "marathi", "nepali", "armenian",
                     "sorani")
#: PyStemmer 3's Snowball stemmers (``stem=<name>``): named here so that a name is checked, and
#: a known one without PyStemmer says to install it, whether or not PyStemmer is installed.
SNOWBALL_LANGUAGES = ("arabic", "armenian", "basque", "catalan", "czech", "danish", "dutch", "dutch_porter",
                      "english", "esperanto", "estonian", "finnish", "french", "german", "greek", "hindi",
                      "hungarian", "indonesian", "irish", "italian", "lithuanian", "nepali", "norwegian", "persian",
                      "polish", "porter", "portuguese", "romanian", "russian", "serbian", "sesotho", "spanish",
                      "swedish", "tamil", "turkish", "yiddish")
#: The stemmers of learnsim's own, in pure Python (``stem=<name>``), which need no PyStemmer:
#: Lucene's Arabic, Hindi and Persian light stemmers (:mod:`._arabic`, :mod:`._hindi`,
#: :mod:`._persian`), Czech's and Bulgarian's (:mod:`._czech`, :mod:`._bulgarian`), Bengali's and
#: Telugu's (:mod:`._bengali`, :mod:`._telugu`), Latvian's (:mod:`._latvian`), Sorani's (:mod:`._sorani`). Snowball's
#: ``"arabic"``, ``"hindi"``, ``"persian"`` and ``"czech"`` are PyStemmer's, as before.
LIGHT_STEMMERS = ("arabic_light", "hindi_light", "persian_light", "czech_light", "bulgarian_light",
                  "bengali_light", "telugu_light",
                  "latvian_light",
                  "sorani_light")
# the languages whose baselines (and fits asked for stems) stem with one of them, not Snowball's
_OWN_STEMS = {name[:-len("_light")]: name for name in LIGHT_STEMMERS}
# ISO 639-1 codes of the languages above (--language fr), as bm25s names its stop lists
_CODES = {"ar": "arabic", "da": "danish", "nl": "dutch", "en": "english", "fi": "finnish", "fr": "french",
          "de": "german", "hi": "hindi", "hu": "hungarian", "it": "italian", "no": "norwegian", "nb": "norwegian",
          "nn": "norwegian", "fa": "persian", "pt": "portuguese", "ru": "russian", "es": "spanish", "sv": "swedish",
          "he": "hebrew", "iw": "hebrew",     # iw: Hebrew's code before 1989, which Java's Locale still gives
          "ur": "urdu",
          "cs": "czech",
          "bg": "bulgarian",
          "uk": "ukrainian",
          "pl": "polish",
          "sk": "slovak"}
# the languages added after the first sixteen: Serbian, Croatian and Bosnian (and sh, Serbo-Croatian's
# withdrawn code) are read as one language, as Snowball's serbian stemmer and Elasticsearch's serbian
# analyser read them, in either script; fil is Filipino, the standard form of Tagalog (ISO 639-2)
_CODES.update({"tr": "turkish", "el": "greek", "id": "indonesian", "ro": "romanian", "ca": "catalan",
               "bn": "bengali", "ta": "tamil", "te": "telugu", "mr": "marathi", "ne": "nepali", "hy": "armenian",
               "sr": "serbian", "hr": "serbian", "bs": "serbian", "sh": "serbian", "lt": "lithuanian",
               "lv": "latvian", "et": "estonian", "vi": "vietnamese", "sw": "swahili", "eu": "basque",
               "ga": "irish", "af": "afrikaans", "tl": "tagalog", "fil": "tagalog", "gl": "galician"})
_CODES.update({"sl": "slovenian", "mk": "macedonian", "be": "belarusian"})
_CODES.update({"eo": "esperanto"})
# Sorani (Central Kurdish, ckb), not ku: Kurdish's code names Kurmanji too, written in Latin letters
_CODES.update({"ckb": "sorani"})
_CODES.update({"ha": "hausa"})
_FOLDER = Path(__file__).with_name("stopwords")
# languages of a stop list of their own and no Snowball stemmer, read with a close language's:
# Afrikaans with Dutch's, as it was read (as Dutch) before its list shipped; unstemmed, its plurals
# in -e and -s (boeke, huise, motors) stayed apart from their nouns. Galician with Portuguese's
_BORROWED_STEMS = {"afrikaans": "dutch",
                   "galician": "portuguese"}      # as read before (as Portuguese); Snowball has no Galician
# Slovenian, Macedonian and Belarusian have no stemmer, Snowball's or Lucene's: each takes its closest
# neighbour's, as it was read before where that is the closest (Slovenian as Serbian, Belarusian as
# Russian), Macedonian Bulgarian's light stemmer, whose articles (-та, -то, -те) and plurals it
# shares, where it was read as Russian. Unstemmed, a query's knjiga, книга, кніга met none of the
# inflected forms those stems join (tests/baseline/test_lexical_slavic_more.py: 0.355, 0.508 and
# 0.202 against 0.903, 0.633 and 0.730); a light stemmer's needs no PyStemmer
_BORROWED_STEMS.update({"slovenian": "serbian", "macedonian": "bulgarian_light", "belarusian": "russian"})


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


@lru_cache(maxsize=None)
def stop_list_source(language):
    """Whose list :func:`stop_list` gives for ``language``, as the first line of its file names it
    ("Snowball's", "python-stop-words'", "stopwords-iso's"; "scikit-learn's" for English): the
    words the baselines say they dropped."""
    if language == "english":
        return "scikit-learn's"
    stop_list(language)  # a name no list has: its ValueError
    first = (_FOLDER / f"{language}.txt").read_text(encoding="utf-8").split("\n", 1)[0]
    return first[2:].split(" ", 1)[0] if first.startswith("# ") else "Snowball's"


class LightStemmer:
    """One of learnsim's own stemmers (a function of a word) with PyStemmer's interface
    (``stemWord``, ``stemWords``), as a :class:`~learnsim.text.Tokenizer` calls its stemmer."""

    def __init__(self, stem_word):
        self.stem_word = stem_word

    def stemWord(self, word):  # noqa: N802  (PyStemmer's name)
        return self.stem_word(word)

    def stemWords(self, words):  # noqa: N802
        return [self.stem_word(w) for w in words]


def load_stemmer(stem):
    """PyStemmer's stemmer of ``stem`` (None, ``"porter"`` or a Snowball language name), or
    None, or learnsim's own of a name of :data:`LIGHT_STEMMERS`; a ValueError for a name no
    stemmer has, an ImportError naming the package where PyStemmer is missing."""
    if stem is None:
        return None
    if isinstance(stem, str) and stem in LIGHT_STEMMERS:
        # learnsim's own, one module a language (._arabic's arabic_light_stem, ...), imported
        # where asked for
        from importlib import import_module

        language = stem[:-len("_light")]
        return LightStemmer(getattr(import_module(f"._{language}", __package__), f"{language}_light_stem"))
    if not isinstance(stem, str) or stem not in SNOWBALL_LANGUAGES:
        raise ValueError(f"stem must be None, 'porter' or a Snowball language PyStemmer knows "
                         f"({', '.join(n for n in SNOWBALL_LANGUAGES if n != 'porter')}), or one of learnsim's "
                         f"({', '.join(LIGHT_STEMMERS)}); got {stem!r}")
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


def stemmed_language_codes():
    """The two-letter codes :func:`check_language` takes (``"ar"``, ``"bg"``, ...), sorted: what a
    message names where a language given must be one of them."""
    return sorted(_CODES)


# the words the baselines' tokenizer reads (two word characters or more, digits inside kept):
# letters alone would cut "t5w6" into "t" and "w", and French's elided "t" (t') and "s" made a
# collection of codes French
_WORD = re.compile(r"\w\w+")
# full-width ASCII (U+FF01-U+FF5E), as the tokenizer folds it to ASCII (its _fold_width)
_FULLWIDTH = re.compile("[\uff01-\uff5e]+")
_FULLWIDTH_TABLE = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)}
# the texts and the characters of each read to detect a language: enough words for the rates of
# stop words to settle (a few thousand), bounded on a large collection
_DETECT_TEXTS, _DETECT_CHARS = 500, 1000
#: Below this share of a collection's words in any stop list, it is not read as prose of one of
#: these languages (titles, codes, another script), and stays English, as it was read before.
MIN_STOP_SHARE = 0.05
# Arabic is told by its script: Persian and Urdu share most of its letters and some of its short
# words (من, ما, او), so that its stop words alone would read a Persian collection as Arabic.
# Arabic's own letters (hamza to ghain, feh to yeh, alef wasla)
_ARABIC_LETTERS = re.compile("[\u0621-\u063a\u0641-\u064a\u0671]")
# every letter of the Arabic script: those Arabic does not write are Persian's and Urdu's
# (پ چ ژ گ ک ی, ٹ ڈ ڑ ں ھ ہ ے), Kurdish's, Pashto's, Sindhi's...
_SCRIPT_LETTERS = re.compile("(?=[^\\W\\d_])[\u0600-\u06ff\u0750-\u077f\u0870-\u08ff]")
_LETTERS = re.compile(r"[^\W\d_]")
# any character of the Arabic script, its presentation forms included: a sample of none (French,
# Russian) is not put in NFKC and counted, which made detecting its language 4.6x slower
_ANY_ARABIC = re.compile("[\u0600-\u06ff\u0750-\u077f\u0870-\u08ff\ufb50-\ufdff\ufe70-\ufefc]")
#: A collection is Arabic (Hindi) where more than this share of its letters are Arabic's
#: (Devanagari) ...
SCRIPT_LETTER_SHARE = 0.5
#: ... and (Arabic) the letters of its script that Arabic does not write are at most this share of them:
#: Persian writes ی and ک in nearly every word (about a tenth of its letters), an Arabic text a
#: foreign name's پ or گ now and then.
MAX_OTHER_SCRIPT_SHARE = 0.02


# Persian is told by its script too: Arabic's letters and its own six (پ چ ژ گ, and ک ی, which
# it writes for Arabic's ك ي in nearly every word) and heh with yeh above (ۀ).
# Urdu writes all of these and its own (ے ہ ں ٹ ڈ ڑ ھ) in nearly every sentence; Kurdish, Pashto,
# Sindhi and Uyghur theirs (ە ۆ ێ ڵ, ټ ډ ړ ښ, ...): a sample holding more than a few of those
# is not Persian, and is read as before.
_PERSIAN_OWN = re.compile("[پچژگکیۀ]")


def _arabic_script_language(sample):
    """``"arabic"`` or ``"persian"`` where the text ``sample`` is written in that language, else
    None. Arabic: most of its letters Arabic's, and almost none of them the Arabic script's
    letters of Persian, Urdu and the others. Persian: most of its letters the Arabic script's,
    more than a few of them Persian's own (ی ک پ چ ژ گ), and almost none of them the letters of
    the script that Persian does not write (Urdu's ے ہ ں ٹ ڈ ڑ, Kurdish's, ...). The sample is
    put in normal form and counted once for both, which detecting an Urdu collection does."""
    if sample.isascii() or not _ANY_ARABIC.search(sample):
        return None
    # presentation forms (ﻻ, ﺍ), as old files write them, read as the letters they show
    sample = unicodedata.normalize("NFKC", sample)
    # each character counted once, and the letters of each kind summed over the few distinct ones:
    # a findall of each kind made a string of every letter, 0.5-1 s for 500 texts of Punjabi
    chars = _char_counts(sample)
    letters, arabic, script = (_tally(chars, kind) for kind in (_LETTERS, _ARABIC_LETTERS, _SCRIPT_LETTERS))
    if arabic > SCRIPT_LETTER_SHARE * letters and script - arabic <= MAX_OTHER_SCRIPT_SHARE * arabic:
        return "persian" if _persian_stop_words_lead(sample) else "arabic"
    if script <= SCRIPT_LETTER_SHARE * letters:
        return None
    own = _tally(chars, _PERSIAN_OWN)
    if own > MAX_OTHER_SCRIPT_SHARE * script and script - arabic - own <= MAX_OTHER_SCRIPT_SHARE * script:
        return "persian"
    if _is_urdu(sample, script, chars):
        return "urdu"
    if _is_sorani(sample, script, chars):
        return "sorani"
    return None


# Urdu is told by its script and its stop words: its own letters (ٹ ڈ ڑ ں ھ ہ ے, in nearly every
# sentence) more than a few of the script's letters, almost none that Urdu does not write
# (Sindhi's ڪ ڦ ٻ, Pashto's ټ ډ ړ ښ, Kurdish's ە ۆ ێ ڵ), and Urdu's stop words a fifth of its words
# or more: Punjabi and Saraiki in Shahmukhi write Urdu's letters with other words (دا, وچ, نوں;
# hand-written Punjabi sentences hold about 20 % of Urdu's stop words, their Urdu 50 %).
_URDU_OWN = re.compile("[\u0679\u0688\u0691\u06ba\u06be\u06c1-\u06c3\u06d2\u06d3]")
_URDU_ALPHABET = re.compile("[\u0621-\u063a\u0641-\u064a\u0671\u067e\u0686\u0698\u06a9\u06af\u06cc"
                            "\u0679\u0688\u0691\u06ba\u06be\u06c1-\u06c3\u06d2\u06d3]")
#: A collection of Urdu's letters is Urdu where Urdu's stop words make at least this share of its
#: words of the Arabic script.
MIN_URDU_SHARE = 0.3


def _is_urdu(sample, script, chars):
    """Whether ``sample`` (in NFKC, ``script`` of its letters the Arabic script's, more than half;
    ``chars`` its :func:`_char_counts`) is written in Urdu: more than 2 % of those letters
    Urdu's own, at most 2 % letters Urdu does not write, and 30 % of its words of the script or
    more Urdu's stop words."""
    if _tally(chars, _URDU_OWN) <= MAX_OTHER_SCRIPT_SHARE * script:
        return False
    if script - _tally(chars, _URDU_ALPHABET) > MAX_OTHER_SCRIPT_SHARE * script:
        return False
    counts = _urdu_word_counts(sample)
    words = sum(n for w, n in counts.items() if _SCRIPT_LETTERS.match(w))
    stop = _urdu_stop_list()
    return words > 0 and sum(counts[w] for w in stop if w in counts) >= MIN_URDU_SHARE * words


def _urdu_normal():
    from ._arabic import _NORMAL as arabic

    return {**arabic, 0x06CC: "\u064a", 0x06A9: "\u0643", 0x06C0: "\u0647", 0x06C1: "\u0647", 0x0654: None}


_URDU_NORMAL = _urdu_normal()
# a run of word characters and of the characters _URDU_NORMAL reads (marks it drops, letters it
# reads as others), each of which it reads as word characters or nothing
_URDU_RUN = re.compile("[\\w" + "".join(re.escape(chr(c)) for c in sorted(_URDU_NORMAL)) + "]+")


def _urdu_word_counts(sample):
    """The Counter of the words of ``sample`` read as the tokenizer reads Urdu (Urdu typed on an
    Arabic keyboard writes ي ك ه for ی ک ہ; not in Persian's normal form, which reads ے as ی and so
    Punjabi's تے, and, as Urdu's): ``Counter(_WORD.findall(sample.translate(_URDU_NORMAL)))``,
    each distinct run of word characters and of those the table reads translated once (the
    sample's translate cost more than the rest of a detection): a run is one word of the sample
    translated whole, as the table reads each of its characters as word characters or nothing."""
    counts = Counter()
    for run, n in Counter(_URDU_RUN.findall(sample)).items():
        for word in _WORD.findall(run.translate(_URDU_NORMAL)):
            counts[word] += n
    return counts


def _char_counts(text):
    """{character: how many times ``text`` holds it}, counted by numpy over the code points (a
    Counter of the characters made a string of each: 40 ms for 500 texts of Urdu)."""
    import numpy as np

    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    counts = np.bincount(codes)
    return {chr(c): int(counts[c]) for c in np.flatnonzero(counts)}


def _tally(chars, kind):
    """How many of the characters counted in ``chars`` (:func:`_char_counts`) the one-character pattern
    ``kind`` matches."""
    return sum(n for c, n in chars.items() if kind.match(c))


# Sorani (Central Kurdish) is told by its script and stop words: its own letters (the vowels ە ێ ۆ,
# ڕ ڵ ڤ; ە alone in nearly every word) more than a few of the script's letters, almost none that
# Sorani does not write (Urdu's ٹ ڈ ڑ ں ے ہ, Pashto's ټ ډ ړ ښ, Uyghur's ې ۇ ۈ ۋ ڭ; Arabic's own
# letters it writes in loans), and its stop words 5 % of its words, read in Lucene's Sorani
# normal form (ي ك as ی ک), as its stemmer reads them.
_SORANI_OWN = re.compile("[\u06d5\u06ce\u06c6\u0695\u06b5\u06a4]")
_SORANI_ALPHABET = re.compile("[\u0621-\u063a\u0641-\u064a\u067e\u0686\u0698\u06a9\u06af\u06cc\u06be"
                              "\u06d5\u06ce\u06c6\u0695\u06b5\u06a4\u0692]")


def _is_sorani(sample, script, chars):
    """Whether ``sample`` (in NFKC, ``script`` of its letters the Arabic script's, more than half;
    ``chars`` its :func:`_char_counts`) is written in Sorani: more than 2 % of those letters
    Sorani's own, at most 2 % letters Sorani does not write, and 5 % of its words Sorani's stop words."""
    if _tally(chars, _SORANI_OWN) <= MAX_OTHER_SCRIPT_SHARE * script:
        return False
    if script - _tally(chars, _SORANI_ALPHABET) > MAX_OTHER_SCRIPT_SHARE * script:
        return False
    from ._sorani import _normalise

    counts = Counter(_WORD.findall(sample))
    stop = _sorani_stop_list()
    words = sum(counts.values())
    return sum(n for w, n in counts.items() if _normalise(w) in stop) >= MIN_STOP_SHARE * max(1, words)


@lru_cache(maxsize=None)
def _sorani_stop_list():
    from ._sorani import _normalise

    return frozenset(map(_normalise, stop_list("sorani")))


@lru_cache(maxsize=None)
def _urdu_stop_list():
    return frozenset(w.translate(_URDU_NORMAL) for w in stop_list("urdu"))


def _persian_stop_words_lead(sample):
    """Whether more of the words of ``sample`` (written in Arabic's letters alone) are Persian's
    stop words than Arabic's, both read in Lucene's Persian normal form: Persian typed on an
    Arabic keyboard writes ي and ك for ی and ک, and then holds none of Persian's own letters
    but a rare پ or گ, which read it as Arabic (است, را, این, که: about 40 % of its words;
    Arabic's stop words about 5 %, and Arabic prose holds 20 % of Arabic's, 7 % of Persian's)."""
    from ._persian import _NORMAL

    counts = Counter(_WORD.findall(sample.translate(_NORMAL)))
    return (sum(counts[w] for w in _normal_stop_list("persian") if w in counts)
            > sum(counts[w] for w in _normal_stop_list("arabic") if w in counts))


@lru_cache(maxsize=None)
def _normal_stop_list(language):
    from ._persian import _NORMAL

    return frozenset(w.translate(_NORMAL) for w in stop_list(language))


# Hebrew is told by its script: more than half the sample's letters Hebrew's. Yiddish writes the
# same letters, and marks of its own in nearly every sentence: the ligatures װ ױ ײ, the rafe of פֿ
# (פֿון, of), and an alef with patah or qamats (אַ, אָ) in text that points no other letter, where
# pointed Hebrew (a scripture, a dictionary) points nearly every letter. A sample with more than a
# few of them is not Hebrew, and is read as before.
_ANY_HEBREW = re.compile("[\u0590-\u05ff\ufb1d-\ufb4f]")
_HEBREW_FORMS = re.compile("[\ufb1d-\ufb4f]")
_HEBREW_LETTERS = re.compile("[\u05d0-\u05ea\u05f0-\u05f2]")
_YIDDISH_MARKS = re.compile("[\u05f0-\u05f2\u05bf]")
_POINTED_ALEF = re.compile("\u05d0[\u05b7\u05b8]")
_HEBREW_POINTS = re.compile("[\u05b0-\u05bc\u05c1\u05c2\u05c7]")


def _is_hebrew(sample):
    """Whether the text ``sample`` is written in Hebrew: more than half its letters Hebrew's, and
    almost none of Yiddish's marks (at most 2 % of its Hebrew letters)."""
    if sample.isascii() or not _ANY_HEBREW.search(sample):
        return False
    if _HEBREW_FORMS.search(sample):
        # presentation forms (ﬠ, ﭏ, אַ written as one character) read as the letters and points they
        # show; looked for first, as NFKC of a large sample costs more than the rest
        sample = unicodedata.normalize("NFKC", sample)
    hebrew = len(_HEBREW_LETTERS.findall(sample))
    if hebrew <= SCRIPT_LETTER_SHARE * len(_LETTERS.findall(sample)):
        return False
    if len(_YIDDISH_MARKS.findall(sample)) > MAX_OTHER_SCRIPT_SHARE * hebrew:
        return False
    pointed = len(_HEBREW_POINTS.findall(sample)) >= 0.3 * hebrew
    return pointed or len(_POINTED_ALEF.findall(sample)) <= MAX_OTHER_SCRIPT_SHARE * hebrew


# Hindi is told by its script and its stop words: Marathi, Nepali, Sanskrit and others write
# Devanagari too, and their words are not Hindi's (a Marathi text has about 3 % of Hindi's stop
# words, a Nepali one 5 to 8 %, Hindi prose 30 to 45 %)
_DEVANAGARI_LETTERS = re.compile("(?=[^\\W\\d_])[\u0900-\u097f]")
# a word of Devanagari: its letters with their vowel signs and marks (\w alone cuts at the signs)
_DEVANAGARI_WORD = re.compile("[\u0900-\u0963\u0966-\u097f]+")
#: A collection is Hindi where more than half its letters are Devanagari and Hindi's stop words
#: make at least this share of its Devanagari words.
MIN_HINDI_SHARE = 0.2


def _is_hindi(sample):
    """Whether the text ``sample`` is written in Hindi: most of its letters Devanagari, and a
    fifth of its Devanagari words or more Hindi's stop words."""
    if sample.isascii() or not _DEVANAGARI_WORD.search(sample):
        return False
    sample = unicodedata.normalize("NFC", sample)
    if len(_DEVANAGARI_LETTERS.findall(sample)) <= SCRIPT_LETTER_SHARE * len(_LETTERS.findall(sample)):
        return False
    words = _DEVANAGARI_WORD.findall(fold_devanagari_anusvara(sample))
    stop = _nfc_stop_list("hindi")
    return sum(w in stop for w in words) >= MIN_HINDI_SHARE * len(words)


@lru_cache(maxsize=None)
def _nfc_stop_list(language):
    # its words as the tokenizer reads them and a sample's Devanagari words are counted: in NFC,
    # a class nasal and virama as the anusvara (Nepali's भन्दा is भंदा, as a text typing it so
    # is; counted as written, the tokenizer dropped both and detection counted only the one).
    # The fold touches Devanagari's virama alone: every other list is its NFC
    return frozenset(fold_devanagari_anusvara(unicodedata.normalize("NFC", w)) for w in stop_list(language))


# Bengali, Tamil, Telugu and Armenian are told by their scripts, Marathi and Nepali (Devanagari,
# as Hindi) by their stop words once Hindi's are too few: each writes its own script (more than
# half the sample's letters), and the Indic ones 5 % of their words or more in its stop list, as
# any language of the lists (hand-written prose: 40 % or so; short Tamil sentences, agglutinated, 9 %;
# Sanskrit, which Telugu's and Bengali's letters write too, about none). Assamese writes Bengali's
# letters and its own ৰ ৱ, which Bengali never does: a sample of more than a few is not Bengali. A
# sample of Devanagari is Marathi or Nepali only where that list holds more of its words than
# Hindi's does, so that Hindi titles that hold few of Hindi's stop words stay as they were
# (English; Nepali's list holds का, के, को too).
_ANY_NEW_SCRIPT = re.compile("[\u0530-\u058f\u0900-\u097f\u0980-\u09ff\u0b80-\u0c7f\ufb13-\ufb17]")
# (language, its letters, its words: letters with their vowel signs and marks, as \w alone cuts at them)
_SCRIPTS = (("bengali", re.compile("(?=[^\\W\\d_])[\u0980-\u09ff]"), re.compile("[\u0980-\u09e3\u09f0-\u09fe]+")),
            ("tamil", re.compile("(?=[^\\W\\d_])[\u0b80-\u0bff]"), re.compile("[\u0b80-\u0be5\u0bf0-\u0bff]+")),
            ("telugu", re.compile("(?=[^\\W\\d_])[\u0c00-\u0c7f]"), re.compile("[\u0c00-\u0c65\u0c70-\u0c7f]+")))
_ARMENIAN_LETTERS = re.compile("(?=[^\\W\\d_])[\u0530-\u058f\ufb13-\ufb17]")
# Assamese's own letters (ra and wa), which Bengali never writes
_ASSAMESE_OWN = re.compile("[\u09f0\u09f1]")


def _share(words, language):
    stop = _nfc_stop_list(language)
    return sum(w in stop for w in words) / max(1, len(words))


def _indic_armenian_language(sample):
    """``"bengali"``, ``"tamil"``, ``"telugu"``, ``"marathi"``, ``"nepali"`` or ``"armenian"``
    where the text ``sample`` (no Hindi: :func:`_is_hindi` is asked first) is written in it, else None."""
    if sample.isascii() or not _ANY_NEW_SCRIPT.search(sample):
        return None
    sample = unicodedata.normalize("NFC", sample)
    half = SCRIPT_LETTER_SHARE * len(_LETTERS.findall(sample))
    if len(_ARMENIAN_LETTERS.findall(sample)) > half:
        return "armenian"
    for language, letters, word in _SCRIPTS:
        script = len(letters.findall(sample))
        if script <= half:
            continue
        if language == "bengali" and len(_ASSAMESE_OWN.findall(sample)) > MAX_OTHER_SCRIPT_SHARE * script:
            return None
        return language if _share(word.findall(sample), language) >= MIN_STOP_SHARE else None
    if len(_DEVANAGARI_LETTERS.findall(sample)) <= half:
        return None
    words = _DEVANAGARI_WORD.findall(fold_devanagari_anusvara(sample))
    shares = {name: _share(words, name) for name in ("marathi", "nepali")}
    best = max(shares, key=shares.get)
    if shares[best] >= MIN_STOP_SHARE and shares[best] > _share(words, "hindi"):
        return best
    return None


# Greek's stop list is written as the tokenizer reads Greek words: accents and the diaeresis left
# out, final sigma as σ ("είναι", "ΕΊΝΑΙ" and "ειναι" are one word, as Lucene's Greek analyser
# lowercases them); the sample's Greek words are read so too, or its polysyllables ("είναι",
# "από", "αυτό") would never be counted
_GREEK_LETTER = re.compile("[\u0370-\u03ff\u1f00-\u1fff]")


def _greek_folded(counts):
    """``counts`` (a Counter of lowercased words), each Greek word read without accents, final sigma as σ."""
    folded = Counter()
    for word, n in counts.items():
        if _GREEK_LETTER.search(word):
            word = "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))
            word = unicodedata.normalize("NFC", word).replace("ς", "σ")
        folded[word] += n
    return folded
# Russian, Ukrainian and Bulgarian share their short words (на, не, до, по, за), so that a few of
# them decide a short sample; each writes letters the others never do, which tell them apart
# first: Russian ы э ё (about 2 % of its letters), Ukrainian і ї є ґ (about 6 %), neither in
# Bulgarian, nor ъ in Ukrainian.
_ANY_CYRILLIC = re.compile("[\u0400-\u04ff]")
# the lower-case letters of Russian, Ukrainian, Bulgarian, Belarusian and Serbian (а-я, ѐ-џ, ґ),
# counted one by one on the lowered sample (str.count: several times faster than a regex's findall)
_CYRILLIC_LETTERS = "".join(map(chr, range(0x0430, 0x0460))) + "\u0491"
# Serbian's and Macedonian's ј љ њ ћ ђ џ ѓ ќ ѕ are neither Ukrainian's nor Bulgarian's: their
# collections, which share Bulgarian's short words (да, на, се, за), are read as before
_NOT_WRITTEN = {"ukrainian": "ыэёъјљњћђџѓќѕ", "bulgarian": "ыэёіїєґјљњћђџѓќѕ",
                # Serbian's Cyrillic writes none of Russian's, Bulgarian's and Ukrainian's й я ю ь ъ щ
                # (one or more in nearly every sentence of theirs) nor Macedonian's ѓ ќ ѕ: its list,
                # whose words Russian's and Bulgarian's share (на, да, за), leaves their samples alone
                "serbian": "ыэёйяюьъщіїєґѓќѕ"}
_UKRAINIAN_OWN = "іїєґ"
# Macedonian writes none of Russian's ы э ё, Bulgarian's й я ю ь ъ щ, Ukrainian's і ї є ґ,
# Serbian's ћ ђ nor Belarusian's ў: its list, whose short words (на, и, се, да, за) the others'
# share, leaves their samples alone. Belarusian writes neither Russian's и щ ъ (its і, ў, and an
# apostrophe stand for them) nor the letters of the South Slavic languages, and ў (about 2 % of
# its letters) in nearly every sentence, as no other language of the lists does: it contests a
# sample only where more than a few of its letters are ў, and Russian, which writes и in nearly
# every sentence, then does not (a Belarusian collection was read as Russian, or as English)
_NOT_WRITTEN.update({"macedonian": "ыэёйяюьъщіїєґћђў",
                     "belarusian": "ищъїєґјљњћђџѓќѕ"})
_BELARUSIAN_OWN = "ў"
#: A Cyrillic language whose stop words contest a sample needs at most this share of its
#: Cyrillic letters to be letters it never writes (a Russian name quoted now and then).
MAX_NOT_WRITTEN_SHARE = 0.005


def _cyrillic_contest(sample, contest):
    """``contest`` less Ukrainian and Bulgarian where ``sample`` holds more than a few letters
    they never write (Russian's ы э ё, Serbian's and Macedonian's ј љ њ), less Ukrainian where it holds few of Ukrainian's own
    letters (і ї є ґ), and else less Russian, which never writes them: a Russian sample (ы in
    nearly every sentence) is contested as before, by the languages that contested it before."""
    if sample.isascii() or not _ANY_CYRILLIC.search(sample):
        return contest
    lower = sample.lower()
    letters = sum(map(lower.count, _CYRILLIC_LETTERS))
    bound = MAX_NOT_WRITTEN_SHARE * letters
    out = {name for name, foreign in _NOT_WRITTEN.items() if sum(map(lower.count, foreign)) > bound}
    # Ukrainian writes і in nearly every sentence: a sample of none (Bulgarian's) is not Ukrainian,
    # and one of more than a few, in which Ukrainian stays in, is not Russian
    ukrainian = "ukrainian" in contest and "ukrainian" not in out and sum(map(lower.count, _UKRAINIAN_OWN)) > bound
    out.add("russian" if ukrainian else "ukrainian")
    if "belarusian" in contest and "belarusian" not in out and lower.count(_BELARUSIAN_OWN) > bound:
        out.add("russian")
    else:
        out.add("belarusian")
    return [name for name in contest if name not in out]


# what Russian writes in nearly every sentence and Bulgarian never: a word ending in the reflexive
# -ся or -сь (Bulgarian's verbs take a separate се), and ь but before о (Bulgarian's ь is only in
# ьо: шофьор; Russian's in nearly every sentence: меньше, вернуть, обувь)
_RUSSIAN_ONLY = re.compile(r"\w(?:ся|сь)\b|ь(?!о)", re.IGNORECASE)
# the letters that only one language of the lists writes, which decide a tie of its stop words
# with another's (a short sample, whose one stop word both lists hold): Turkish's ı ğ İ (ı in about
# one letter of twenty; Azerbaijani, which shares many of its words, writes them too), Czech's
# ě ř ů, Slovak's ĺ ľ ŕ, Polish's ą ę ł ś ź ż ć ń
_OWN_LETTERS = {"turkish": "ığİĞ", "czech": "ěřůĚŘŮ", "slovak": "ĺľŕĹĽŔ", "polish": "ąęłśźżćńĄĘŁŚŹŻĆŃ",
                # Serbian's (and Croatian's, Bosnian's) ć đ and Cyrillic ј љ њ ћ ђ џ: a Croatian sentence
                # whose je, na, se Czech's and Dutch's lists hold too, a Serbian one whose на, много
                # Russian's does; ć is Polish's too, and a tie of the two keeps the order (Polish)
                "serbian": "ćđĆĐјљњћђџЈЉЊЋЂЏ",
                # Lithuanian's ė į ų (its ą ę are Polish's too, its ū Latvian's)
                "lithuanian": "ėįųĖĮŲ",
                # Latvian's ā ē ī ģ ķ ļ ņ (its ū is Lithuanian's too)
                "latvian": "āēīģķļņĀĒĪĢĶĻŅ",
                # Estonian's õ, which Finnish, whose ja, on, oli, ei Estonian's short list shares,
                # never writes (Portuguese's õ is no Estonian word's: it ties with Estonian rarely)
                "estonian": "õÕ",
                # Esperanto's ĉ ĝ ĥ ĵ ŝ ŭ, which no other language of the lists writes
                "esperanto": "ĉĝĥĵŝŭĈĜĤĴŜŬ"}


def _own_letters_written(sample):
    """The languages of :data:`_OWN_LETTERS` whose own letters are more than 0.5 % of the
    letters of ``sample``."""
    if sample.isascii():
        return set()
    bound = MAX_NOT_WRITTEN_SHARE * len(_LETTERS.findall(sample))
    return {name for name, letters in _OWN_LETTERS.items() if sum(map(sample.count, letters)) > bound}


# Afrikaans shares most of its short words with Dutch (die, en, op, van, het), and Dutch's list
# holds the is and in that Afrikaans's leaves to English: told apart by the words each writes in
# nearly every sentence and the other never: Afrikaans's nie (its double negation), ek, hulle,
# baie, vir, jy, hierdie; Dutch's article de, its niet, zijn, and its ij (Afrikaans writes y: wij
# wy, tijd tyd). Afrikaans contests a sample only where it writes more than a few of its own words
# (so that every sample read before, which writes none, is read as before), and Dutch then only
# where it writes more than a few of Dutch's.
_AFRIKAANS_OWN = ("nie", "ek", "hulle", "baie", "vir", "jy", "hierdie")
_DUTCH_OWN = ("de", "niet", "zijn")


def _afrikaans_contest(counts, total, contest):
    """``contest`` less Afrikaans where the words ``counts`` (``total`` of them) hold at most 0.5 %
    of Afrikaans's own, else less Dutch where they hold at most 0.5 % of Dutch's own (de, niet,
    zijn, a word writing ij)."""
    if "afrikaans" not in contest:
        return contest
    bound = MAX_NOT_WRITTEN_SHARE * total
    if sum(counts[w] for w in _AFRIKAANS_OWN if w in counts) <= bound:
        return [name for name in contest if name != "afrikaans"]
    dutch = sum(counts[w] for w in _DUTCH_OWN if w in counts) + sum(n for w, n in counts.items() if "ij" in w)
    return contest if dutch > bound else [name for name in contest if name != "dutch"]


# Galician shares most of its short words with Portuguese (no, na, do, da, que, se, para), and a
# sentence of it reads as Portuguese by their shares: told apart by what each writes and the other
# never, Galician's ñ (cociña, mañá; Portuguese writes nh) and its own short words (unha, tamén,
# xa, cun, coa, lle, dende, senón, aínda), Portuguese's ã õ ç (não, são, ção). Galician contests a
# sample only where more than a few of its words write them (so that every sample read before,
# which writes none, is read as before), and Portuguese then only where more than a few of its
# words write ã õ ç. Spanish writes ñ too, and stays in: its list decides between the two.
_GALICIAN_OWN = ("unha", "unhas", "tamén", "xa", "cun", "cunha", "coa", "coas", "lle", "lles", "dende", "senón",
                 "aínda", "moito", "moita", "moitos", "moitas")


def _galician_contest(counts, total, contest, writes_enye=True):
    """``contest`` less Galician where the words ``counts`` (``total`` of them) hold at most 0.5 %
    of Galician's own (a word writing ñ, or one of :data:`_GALICIAN_OWN`), else less Portuguese
    where they hold at most 0.5 % of words writing ã, õ or ç. ``writes_enye``: whether the sample
    writes ñ at all (else its words are not read one by one for it)."""
    if "galician" not in contest:
        return contest
    bound = MAX_NOT_WRITTEN_SHARE * total
    own = sum(counts[w] for w in _GALICIAN_OWN if w in counts)
    if own <= bound and writes_enye:
        own += sum(n for w, n in counts.items() if "ñ" in w)
    if own <= bound:
        return [name for name in contest if name != "galician"]
    portuguese = sum(n for w, n in counts.items() if "ã" in w or "õ" in w or "ç" in w)
    return contest if portuguese > bound else [name for name in contest if name != "portuguese"]


# Esperanto shares its short words with the Romance languages (la, de, en, el, se, si, mi) and
# Scandinavian's (vi, kun, ja): it contests a sample only where more than a few of its words are
# Esperanto's own, which no other language of the lists writes (kaj, estas, ankaŭ, ĉar, kiuj, or a
# word writing ĉ ĝ ĥ ĵ ŝ ŭ), so that every sample read before, which writes none, is read as before
_ESPERANTO_OWN = ("kaj", "estas", "estis", "estos", "ankaŭ", "ankoraŭ", "ĉar", "kiuj", "tiuj", "ĉiuj", "ĉu", "ĉi")
_ESPERANTO_LETTERS = frozenset("ĉĝĥĵŝŭ")


def _esperanto_contest(counts, total, contest, writes_letters=True):
    """``contest`` less Esperanto where the words ``counts`` (``total`` of them) hold at most 0.5 %
    of Esperanto's own (:data:`_ESPERANTO_OWN`, or a word writing ĉ ĝ ĥ ĵ ŝ ŭ; ``writes_letters``:
    whether the sample writes one at all, else its words are not read one by one for them)."""
    if "esperanto" not in contest:
        return contest
    bound = MAX_NOT_WRITTEN_SHARE * total
    own = sum(counts[w] for w in _ESPERANTO_OWN if w in counts)
    if own <= bound and writes_letters:
        own += sum(n for w, n in counts.items() if not _ESPERANTO_LETTERS.isdisjoint(w))
    return contest if own > bound else [name for name in contest if name != "esperanto"]


# Hausa's short words are nearly all other lists' too (da, na, ne, ba, ya, ta, ko, ma: Serbian's,
# Romanian's, Swahili's): it contests a sample only where more than a few of its words are Hausa's
# own, which no language of the lists writes (kuma, wannan, cikin, lokacin, the continuous yana,
# suna, tana), so that every sample read before is read as before
_HAUSA_OWN = ("kuma", "wannan", "cikin", "lokacin", "yana", "suna", "tana")


def _hausa_contest(counts, total, contest):
    """``contest`` less Hausa where the words ``counts`` (``total`` of them) hold at most 0.5 % of
    Hausa's own (:data:`_HAUSA_OWN`)."""
    if "hausa" not in contest or sum(counts[w] for w in _HAUSA_OWN if w in counts) > MAX_NOT_WRITTEN_SHARE * total:
        return contest
    return [name for name in contest if name != "hausa"]


# A tie of short shared words decided by the lists' order where another language of the tie
# writes a sign only one of them writes (each asked only on a tie, so every sample read with a
# larger share of one list is read as before):
# (Croatian's č š ž, which Dutch and Polish never write, do not hold: a short Czech sentence
# writes them alone as often, Je to na stole a je to naše., and Czech is read before Serbian)
# - Estonian's ü, where Finnish ties with it and no language writing ü (German, Turkish,
#   Hungarian) does: Finnish never writes ü (Eile ... väga külm ja ... was Finnish by ja, oli)
_ESTONIAN_TIE_OUT = frozenset({"german", "turkish", "hungarian"})
# - Swahili's words beginning with a prenasalised consonant (nzuri, mbwa, ndege, ngoma,
#   mwalimu; not mj, which Croatian's mjesto begins with too), which no word of Czech, Slovak,
#   Polish or Serbian begins with, where the tie is with those alone (Mji huu ... nzuri na ... za
#   ... was Czech by na, za)
_BANTU_START = re.compile(r"\b(?:m[bw]|n[dgz])[^\W\d_]", re.IGNORECASE)
_SWAHILI_TIE_WITH = frozenset({"czech", "slovak", "polish", "serbian"})
# (and Slovenian, whose list holds na and za too, and none of whose words begins so)
_SWAHILI_TIE_WITH |= {"slovenian"}


def _tie_signs(sample, tied, n_words):
    """The languages of ``tied`` (those whose stop words share the top) that take the tie by the
    signs above."""
    out = set()
    letters = len(_LETTERS.findall(sample))
    bound = MAX_NOT_WRITTEN_SHARE * letters
    if "estonian" in tied and "finnish" in tied and not tied & _ESTONIAN_TIE_OUT \
            and sample.count("ü") + sample.count("Ü") > bound:
        out.add("estonian")
    if "swahili" in tied and len(tied) > 1 and tied - {"swahili"} <= _SWAHILI_TIE_WITH \
            and len(_BANTU_START.findall(sample)) > MAX_NOT_WRITTEN_SHARE * n_words:
        out.add("swahili")
    return out


def detect_language(texts):
    """The language of :data:`STOP_LANGUAGES` whose stop words make the largest share of the
    words of ``texts`` (up to 500 texts spread over the collection, the first 1,000 characters
    of each), or ``"english"`` where no list reaches 5 % of them.

    Arabic is told by its script instead: ``"arabic"`` where more than half the letters of these
    texts are Arabic's and at most 2 % as many are of the Arabic script's other letters (Persian's
    ی and ک, Urdu's ے, ...), so that a Persian or Urdu collection is not read as Arabic; Persian
    by its script too: ``"persian"`` where more than half the letters are the Arabic script's,
    more than 2 % of them Persian's own (ی ک پ چ ژ گ) and at most 2 % of them letters Persian
    does not write (Urdu's ے ہ ں ٹ ڈ ڑ ھ, Kurdish's, Pashto's), so that an Urdu collection stays
    as it was, or where Arabic's letters alone hold more of Persian's stop words than of Arabic's
    (Persian typed on an Arabic keyboard); Urdu by its script and stop words: ``"urdu"`` where
    more than 2 % of those letters are Urdu's own (ٹ ڈ ڑ ں ھ ہ ے), at most 2 % are letters Urdu does
    not write, and 30 % of its words are Urdu's stop words (Punjabi's, in the same letters, are
    not). Hebrew by its script: ``"hebrew"`` where more than half the letters are Hebrew's and at
    most 2 % of them carry Yiddish's marks (װ ױ ײ, פֿ, אַ where nothing else is pointed). Hindi by
    its script and its stop words: ``"hindi"`` where more than half the letters are Devanagari and
    a fifth of its Devanagari words are Hindi's stop words (Marathi's and Nepali's are not).
    Bengali, Tamil, Telugu and Armenian by their scripts: more than half the letters the script's
    and (but Armenian) 5 % of its words the language's stop words, Bengali only where Assamese's
    ৰ ৱ are almost none; Marathi and Nepali, where Devanagari is not Hindi, where 5 % of its words
    are in the language's list and more than in Hindi's. Sorani (Central Kurdish) by its script and
    stop words: ``"sorani"`` where more than half the letters are the Arabic script's, more than 2 %
    of them Sorani's own (ە ێ ۆ ڕ ڵ ڤ), at most 2 % letters Sorani does not write (Urdu's, Pashto's,
    Uyghur's ې ۇ ۈ), and 5 % of its words Sorani's stop words.
    Greek's words are counted without their accents, final sigma as σ, as its list is written; a
    text not in NFC (a Vietnamese tone mark written apart) is read in NFC, as the tokenizer reads it.

    Russian, Ukrainian and Bulgarian, which share their short words, are told apart by their
    letters first: Ukrainian and Bulgarian contest a sample only where at most 0.5 % of its
    Cyrillic letters are Russian's ы э ё (and ъ, for Ukrainian), Ukrainian only where more are
    its own і ї є ґ, and then Russian, which never writes them, does not. A tie between Russian
    and Bulgarian (a sample of no ы э ё) goes to Bulgarian where no word ends in Russian's
    reflexive -ся, -сь and no ь stands but before о, and one with Turkish, Czech, Slovak or
    Polish to it where more than 0.5 % of the letters are its own (ı ğ İ, ě ř ů, ĺ ľ ŕ,
    ą ę ł ś ź ż ć ń). Serbian's Cyrillic words contest a sample only where at most 0.5 % of its
    Cyrillic letters are letters Serbian never writes (й я ю ь ъ щ ы і, ѓ ќ ѕ), and a tie goes to
    Serbian where more than 0.5 % are its own ć đ ј љ њ ћ ђ џ (to Polish, read first, where both
    write theirs); one with Lithuanian or Latvian to it where more than 0.5 % are its own
    (ė į ų; ā ē ī ģ ķ ļ ņ), and one with Estonian to it where they are its õ, or, where Finnish
    ties with it and no language writing ü does, its ü. A tie of Swahili with Czech, Slovak,
    Polish and Serbian alone goes to Swahili where more than 0.5 % of the words begin with a
    prenasalised consonant (mb, mw, nd, ng, nz).
    Afrikaans contests a sample only where more than 0.5 % of its words are Afrikaans's own (nie,
    ek, hulle, baie, vir, jy, hierdie), and Dutch then only where more than 0.5 % are Dutch's own
    (de, niet, zijn, a word writing ij).
    Galician contests a sample only where more than 0.5 % of its words are Galician's own (a word
    writing ñ, unha, tamén, xa, cun, coa, lle, ...), and Portuguese then only where more than 0.5 %
    write ã, õ or ç; where Portuguese (Dutch) is out, a tie goes to Galician (Afrikaans).
    Macedonian's words contest a sample only where at most 0.5 % of its Cyrillic letters are
    letters it never writes (ы э ё й я ю ь ъ щ і ї є ґ ћ ђ ў); Belarusian's only where at most
    0.5 % are letters it never writes (и щ ъ ї є ґ ј љ њ ћ ђ џ ѓ ќ ѕ) and more than 0.5 % are its
    ў, and Russian's then not.
    Any other tie goes to the tied languages whose letters the sample does not contradict (more
    than 0.5 % of its letters ones the language never writes: Slovenian's š against Dutch; the
    South Slavic ј against Russian; Macedonian's lone "е" with neither ћ nor ђ against Serbian;
    nothing only Russian writes, as for Bulgarian above, against Russian where Macedonian ties;
    :func:`._ties.tie_losers`), then by the lists' order as before.
    Esperanto contests a sample only where more than 0.5 % of its words are its own (kaj, estas,
    ankaŭ, ĉar, kiuj, or a word writing ĉ ĝ ĥ ĵ ŝ ŭ), Hausa where they are its own (kuma, wannan,
    cikin, lokacin, yana, suna, tana).

    English is compared by scikit-learn's list, larger than the others (318 words against
    94 to 313): a tie goes to English, and an English collection is read as it always was.

    A sample 2 % of whose words are Haitian Creole's own (mwen, yon, pou, anpil), which no
    language of the lists writes, is ``"english"``, the reading of a language of no list
    (:func:`._unread.unread_language`).

    The winner is out where more than half the texts write more than 1 % of their letters (two
    at least, or one no language of the lists writes) in letters of its script that it never
    writes (:func:`._alphabets.contradicted`: Icelandic's ð þ, not Danish; Azerbaijani's ə, not
    Turkish; Mongolian's ө ү, not Russian): the next list not contradicted so wins, else English,
    the reading of a language of no list.

    The winner is out too where a sample of 20 words or more holds fewer than max(2, 0.4 sqrt(n))
    different words of its list (n: the sample's different words): a language of no list holding a
    few of its words by chance (Lorem ipsum's sit, et; Maori's te, ki) is English, the reading of a
    language of no list (:mod:`._recognised`).

    Examples
    --------
    >>> from learnsim.text import detect_language
    >>> detect_language(["Les chats dorment sur le canapé pendant que nous travaillons."])
    'french'
    >>> detect_language(["The cats sleep on the sofa while we work."])
    'english'
    >>> detect_language(["ذهب الطلاب إلى المدرسة في الصباح"])
    'arabic'
    """
    if texts is None or isinstance(texts, (str, bytes)):
        # a lone text is a collection of its characters, every one a word of no list: "english",
        # whatever the language (sentence-transformers' users meet this one silently)
        raise TypeError(f"texts must be a list of str (a collection's texts); got {type(texts).__name__}"
                        + (": put the one text in a list" if texts is not None else ""))
    from ._recognised import recognised

    return recognised(*_detect(texts), stop_list)


def _detect(texts):
    """(language, shares, words) of :func:`detect_language` before the check that the winner is
    recognised (:mod:`._recognised`): the language as its lists and scripts read ``texts``, the
    share of the sample's words in each contested list and the sample's words as each list read
    them ({language: Counter}; Greek's folded) (both None where a script or a language's own
    words decided)."""
    texts = list(texts)
    step = max(1, len(texts) // _DETECT_TEXTS)
    counts = Counter()
    sample = [text[:_DETECT_CHARS] for text in texts[::step][:_DETECT_TEXTS] if isinstance(text, str)]
    joined = "\n".join(sample)
    script_language = _arabic_script_language(joined)
    if script_language:
        return script_language, None, None
    if _is_hebrew(joined):
        return "hebrew", None, None
    if _is_hindi(joined):
        return "hindi", None, None
    script_language = _indic_armenian_language(joined)
    if script_language:
        return script_language, None, None
    for text in sample:
        if not text.isascii() and not unicodedata.is_normalized("NFC", text):
            # a tone mark written apart (Vietnamese typed on some keyboards: e and a combining
            # circumflex and dot below for ệ) is no \w, and cut "việc" into "vie"; in NFC, as the
            # tokenizer reads it, it is one word (looked at first: NFC of a text in it costs more)
            text = unicodedata.normalize("NFC", text)
        if not text.isascii() and _FULLWIDTH.search(text):
            # full-width Latin (ＬＥＳ ｃｈａｔｓ, typed on a CJK keyboard) is ASCII to the tokenizer:
            # its stop words counted none, and a French collection so written read as English
            text = _FULLWIDTH.sub(lambda m: m.group().translate(_FULLWIDTH_TABLE), text)
        # Turkish's İ lowercases to i and a combining dot, which cut İÇİN and GİBİ into "çi", "gi",
        # "bi": without the dot, as the tokenizer reads them, they are için and gibi
        counts.update(_WORD.findall(text.lower().replace("i\u0307", "i")))
    total = sum(counts.values())
    if not total:
        return "english", None, None
    from . import _unread

    if _unread.unread_language(counts, total, joined):
        # Haitian Creole (its own words): read as a language of no list, not by the stems of the
        # neighbour whose stop words it shares (._unread)
        return "english", None, None
    contest = [name for name in STOP_LANGUAGES if name not in _SCRIPT_LANGUAGES]
    contest = _cyrillic_contest(joined, contest)
    contest = _afrikaans_contest(counts, total, contest)
    contest = _galician_contest(counts, total, contest, "ñ" in joined or "Ñ" in joined)
    contest = _esperanto_contest(counts, total, contest,
                                 not joined.isascii() and not _ESPERANTO_LETTERS.isdisjoint(joined.lower()))
    contest = _hausa_contest(counts, total, contest)
    read = {name: counts for name in contest}
    if not joined.isascii() and _GREEK_LETTER.search(joined):      # (isascii: a third of an English one)
        read["greek"] = _greek_folded(counts)
    shares = {name: sum(read[name][w] for w in stop_list(name) if w in read[name]) / total for name in contest}
    # a tie between Russian and Bulgarian (their shared short words на, не, за alone) goes to
    # Bulgarian where the sample writes nothing only Russian writes: Bulgarian is still contested
    # only where it writes none of Russian's ы э ё, and neither a reflexive -ся, -сь (является,
    # находится) nor a ь but in ьо (меньше) is Bulgarian's (a Bulgarian sentence whose one stop
    # word was на was read as Russian by the lists' order); and a tie with Turkish, Czech, Slovak
    # or Polish goes to it where the sample writes its own letters, which no other language of the
    # lists does (a Turkish sentence whose one stop word was ve, Czech's too, was read as Czech, a
    # Polish one whose one stop word was moje as Czech, a Czech one whose do and o are Portuguese's
    # as Portuguese)
    # (looked for only on a tie: counting the sample's letters cost twice the rest of a detection)
    top = max(shares.values())
    bulgarian, own, losers = False, (), set()
    # (and not where no list reaches MIN_STOP_SHARE, which is English whatever the tie: 500 texts
    # of Punjabi, whose words no list of its script holds, counted their letters for nothing)
    if top >= MIN_STOP_SHARE and sum(share == top for share in shares.values()) > 1:
        bulgarian = "bulgarian" in contest and not _RUSSIAN_ONLY.search(joined)
        own = _own_letters_written(joined)
        # Galician and Afrikaans contest a sample only where it writes their own words (and
        # Portuguese, Dutch then only where it writes theirs): where the close language is out,
        # a tie with a list read before (Polish's na and no) goes to them
        own |= {name for name, close in (("galician", "portuguese"), ("afrikaans", "dutch"))
                if name in contest and close not in contest}
        tied = {name for name in contest if shares[name] == top}
        own |= _tie_signs(joined, tied, total)
        # a tied language the sample's letters contradict (one of them is enough on a tie) loses it
        from ._ties import tie_losers

        losers = tie_losers(joined, tied, len(_LETTERS.findall(joined)), total,
                            russian_only=_RUSSIAN_ONLY.search(joined) is not None)
    best = max(contest, key=lambda name: (shares[name], name not in losers, name == "english",
                                          (bulgarian and name == "bulgarian") or name in own))
    if shares[best] >= MIN_STOP_SHARE and not joined.isascii():
        # a language that writes letters of its script the winner never writes (Icelandic's ð þ,
        # read as Danish by og, er; Maltese's ħ ġ, as French by il, ta) is not the winner's:
        # the next list not contradicted so, else English, as an unread language always was
        # (looked for only where a list won: an English collection is read as before)
        from ._alphabets import contradicted

        if contradicted(sample, [best]):
            # (the others asked only then: each language asked costs as much)
            out = contradicted(sample, [name for name in contest if name != best]) | {best}
            rest = [name for name in contest if name not in out] or ["english"]
            best = max(rest, key=lambda name: (shares[name], name not in losers, name == "english",
                                               (bulgarian and name == "bulgarian") or name in own))
    return (best if shares[best] >= MIN_STOP_SHARE else "english"), shares, read


def _pystemmer_has(language):
    """Whether the installed PyStemmer has the Snowball stemmer of ``language`` (True where
    PyStemmer is not importable: naming it then says to install it)."""
    try:
        import Stemmer
    except ImportError:
        return True
    return language in Stemmer.algorithms()


def baseline_reading(language, stemmer_installed=None):
    """(stop_words, stem) of the lexical baselines reading ``language`` (a name of
    :data:`STOP_LANGUAGES`): English's stop list and Porter stems for English (as they always
    were), the language's list and Snowball stemmer for another; no stems without PyStemmer.
    Arabic's, Hindi's and Persian's stems are learnsim's own (``"arabic_light"``, ``"hindi_light"``,
    ``"persian_light"``, Lucene's), with or without it, and so are Czech's (``"czech_light"``) and
    Bulgarian's (``"bulgarian_light"``), Bengali's and Telugu's (``"bengali_light"``,
    ``"telugu_light"``), and Latvian's (``"latvian_light"``); Ukrainian, Slovak and Marathi are not
    stemmed (no stemmer of them is Lucene's or Snowball's); Polish takes Snowball's Polish stemmer
    (PyStemmer 3), Tamil, Nepali and Armenian Snowball's. Slovenian takes Serbian's Snowball stems,
    Belarusian Russian's, Macedonian Bulgarian's light stems (none has a stemmer of its own); Sorani
    takes Lucene's light stemmer (``"sorani_light"``)."""
    if language in _OWN_STEMS:
        return language, _OWN_STEMS[language]
    if stemmer_installed is None:
        from importlib.util import find_spec

        stemmer_installed = find_spec("Stemmer") is not None
    if language == "english":
        return "english", "porter" if stemmer_installed else None
    if language in _BORROWED_STEMS:
        stem = _BORROWED_STEMS[language]
        return language, stem if stemmer_installed or stem in LIGHT_STEMMERS else None
    if language not in SNOWBALL_LANGUAGES:
        # Hebrew, Urdu, Ukrainian, Slovak, Marathi: no stemmer, Snowball's or Lucene's (Hebrew's prefixes are
        # letters of the word that no rule without a dictionary tells apart; no published Urdu light
        # stemmer ships with rules and a licence to follow), so their words stay whole
        return language, None
    if stemmer_installed and not _pystemmer_has(language):
        # Polish came with PyStemmer 3 (learnsim[stem] takes 2.2 and later): an older one reads it
        # unstemmed, as without PyStemmer, where naming its stemmer failed
        return language, None
    return language, language if stemmer_installed else None


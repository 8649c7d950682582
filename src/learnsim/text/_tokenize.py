"""Turn one document into terms (:class:`Tokenizer`): the standard library only, so that an
index can tokenise queries without importing scikit-learn (:mod:`learnsim.index._query`).
:mod:`learnsim.text` re-exports everything here.

Text written without spaces between words (Chinese, Japanese, Korean's Hangul, Thai) has no word
boundary a regular expression can find: ``\\w\\w+`` takes a whole Japanese sentence as one term.
The default analyzer therefore cuts every run of those scripts into overlapping character
bigrams, as Lucene's and Elasticsearch's CJK analyser does (a character standing alone becomes a
unigram), and keeps words for every other script. Morphological analysers (SudachiPy or fugashi
for Japanese, jieba for Chinese) are optional and segment the runs of their own scripts instead;
their libraries are imported only when one is asked for.

Text in other scripts that is not ASCII is read by Unicode's rules for words (``unicode_words``):
in NFC, with combining marks kept in their words (``\\w`` matches none, and Devanagari writes
most vowels as marks), Arabic's and Hebrew's optional vowel points dropped, and Lao, Myanmar and
Khmer, written without spaces, cut into bigrams as Thai is; invisible characters left out of
words, punctuation read by Unicode's word rules (a mark ends a run of a spaceless script, Hebrew's
gershayim stays inside its word), and letter variants (Arabic script, Greek accents, Russian ё),
compatibility letters and every script's digits folded (see :class:`Tokenizer`).
"""
from __future__ import annotations

import numbers
import re
from operator import add as _add
from unicodedata import category as _category, combining as _combining, decimal as _decimal, \
    is_normalized as _is_normalized, normalize as _normalize

from .._utils.inputs import RADICAL_CLASS
from ._folds import COMPATIBILITY_ALONE as _COMPATIBILITY_ALONE, FOLDS as _FOLDS, \
    casefold_places as _casefold_places, emoji_words as _emoji_words, fold_joined as _fold_joined, fold_more as _fold_more, \
    open_compatibility as _open_compatibility, drop_ignorable as _drop_ignorable, kept_places as _kept_places
from ._spans import mapped_spans as _mapped
from ._stems import stem_tokens as _stem_words
from ._chinese import load_jieba as _load_jieba, longest_reading as _jieba_longest, traditional_chinese as _traditional_chinese
from ._languages import STOP_LANGUAGES, load_stemmer, stop_list  # noqa: F401  (STOP_LANGUAGES: the docs' name)
from ._irish import irish_lower as _irish_lower, reads_irish as _reads_irish
from ._long_text import lowered as _lowered
from ._tai import TAI_SCRIPTS as _TAI
from ._turkish import drop_suffixes as _drop_suffixes, reads_turkish as _reads_turkish, turkish_lower as _turkish_lower

__all__ = ["Tokenizer", "DEFAULT_TOKEN_PATTERN", "ANALYZERS", "LATER_READINGS", "LANGUAGE_ANALYZERS", "analyzer_for_language", "tokenizer_params",
           "check_analysis", "analysis_of", "resolve_analysis", "LoneCharacters", "MAX_LONE_TERMS"]

DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"

#: The settings of how a text is read that came after models were first saved, each True for a
#: new model and False for one saved before it existed (which keeps the reading it was fitted
#: with): a saved vectoriser's state, an index plan and a pickled Tokenizer fill a missing one
#: with False, and a plan records one only where it is True (a learnsim that does not know it
#: then refuses the plan rather than read queries another way).
LATER_READINGS = ("drop_ignorables", "uax29_punctuation", "fold_variants", "fold_radicals", "indic_zwnj", "sara_am",
                  "ela_geminada", "fold_squares", "casefold", "latin_digraphs", "lao_digraphs", "cyrillic_apostrophe",
                  "fold_stop_words",
                  "sara_ae",
                  "malayalam_chillu",
                  "fold_enclosed",
                  "emoji_terms",
                  "emoji_sequences",
                  "khanda_ta", "vietnamese_tones", "devanagari_visarga", "jieba_search",
                  "mai_yamok", "hangul_jamo", "yiddish_ligatures", "lunate_sigma",
                  "vietnamese_eth", "devanagari_anusvara", "cyrillic_latin_i", "armenian_marks",
                  "katakana_variants", "turkish_lowercase", "turkish_apostrophe", "irish_lowercase", "tai_scripts", "cyrillic_stress", "syriac_points")

#: ``"cjk"`` (the default): words, and overlapping character bigrams over runs of Han, Hiragana,
#: Katakana, Hangul and Thai; ``"words"``: the token pattern alone (a run of those scripts is one
#: term; what models saved before the analyzer was recorded do); ``"sudachi"``, ``"fugashi"``
#: (Japanese) and ``"jieba"`` (Chinese): the runs of their scripts segmented into words.
ANALYZERS = ("cjk", "words", "sudachi", "fugashi", "jieba")

#: What ``language=`` picks: a morphological analyser where the language has one here, else the
#: script rule (``None``, "en", ... all give ``"cjk"``, which is the token pattern on text
#: without those scripts).
LANGUAGE_ANALYZERS = {"ja": ("sudachi", "fugashi"), "zh": ("jieba",)}
# ISO 639-2/3 codes of those languages (jpn, zho, chi; cmn, Mandarin): taken as "jpn" they read
# as any other language, character bigrams, and with an analyser given were refused
_LANGUAGE_ALIASES = {"jpn": "ja", "zho": "zh", "chi": "zh", "cmn": "zh"}


def _primary_language(language):
    """The two-letter primary subtag of a language code ("ja-JP", "jpn" and "ja_JP" are "ja")."""
    primary = language.lower().split("-")[0].split("_")[0]
    return _LANGUAGE_ALIASES.get(primary, primary)


class _LazyPattern:
    """A regular expression compiled at its first use, a module global (pickled by its name). The
    patterns of the spaceless scripts take 11-15 ms to compile (their classes reach past the
    Basic Multilingual Plane), paid by every process that imported the tokenizer, at a command
    line search's first query, though English text never reaches them."""

    # the compiled pattern's methods, bound in these slots at the first use: then found without
    # __getattr__'s Python call (0.8 us, 9 % of a short Japanese sentence's analysis)
    _METHODS = ("search", "match", "fullmatch", "sub", "split", "finditer", "findall")
    __slots__ = ("_name", "_pattern", "_compiled") + _METHODS

    def __init__(self, name, pattern):
        self._name, self._pattern, self._compiled = name, pattern, None

    def __getattr__(self, attr):
        if attr.startswith("__"):     # copy's and pickle's probes are not the pattern's
            raise AttributeError(attr)
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._pattern)
            for method in self._METHODS:
                setattr(self, method, getattr(compiled, method))
        return getattr(compiled, attr)

    # one object, as a compiled pattern is: the tokenizer tells its runs apart by identity
    def __reduce__(self):
        return self._name

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


# Scripts written without spaces between words. Ranges: Thai; Hangul Jamo; the CJK iteration and
# closing marks (々 〆 〇); Hiragana; Katakana (with the prolonged sound mark); Hangul compatibility
# Jamo; Katakana phonetic extensions; CJK Extension A; CJK Unified Ideographs; Hangul Jamo
# Extended-A; Hangul syllables and Jamo Extended-B; CJK compatibility ideographs; halfwidth
# Katakana; CJK Extensions B-H.
_SPACELESS = ("\u0E00-\u0E7F\u1100-\u11FF\u3005-\u3007\u3040-\u309F\u30A0-\u30FF\u3130-\u318F"
              "\u31F0-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uA960-\uA97F\uAC00-\uD7FF\uF900-\uFAFF"
              "\uFF66-\uFF9F\U00020000-\U0003134F")
_SPACELESS_RUN = _LazyPattern("_SPACELESS_RUN", f"[{_SPACELESS}]+")
# With Unicode words (Tokenizer's unicode_words) Lao, Myanmar and Khmer too (their blocks and
# extensions), written without spaces as Thai is: read by the token pattern alone, a sentence
# would be one term, its vowel signs now inside it, where cut at them it gave fragments that at
# least matched in part.
_SPACELESS_MORE = "\u0E80-\u0EFF\u1000-\u109F\u1780-\u17FF\u19E0-\u19FF\uA9E0-\uA9FF\uAA60-\uAA7F"
_SPACELESS_RUN_U = _LazyPattern("_SPACELESS_RUN_U", f"[{_SPACELESS}{_SPACELESS_MORE}]+")
# the runs a morphological analyser segments: Japanese (Han, kana) for sudachi and fugashi,
# Chinese (Han) for jieba; other spaceless runs stay bigrams
_JAPANESE_RUN = _LazyPattern("_JAPANESE_RUN", "[\u3005-\u3007\u3040-\u309F\u30A0-\u30FF\u31F0-\u31FF\u3400-\u4DBF"
                                              "\u4E00-\u9FFF\uF900-\uFAFF\uFF66-\uFF9F\U00020000-\U0003134F]+")
_HAN_RUN = _LazyPattern("_HAN_RUN", "[\u3005-\u3007\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF\U00020000-\U0003134F]+")

# Width folding, one character for one (so that spans keep their places): fullwidth ASCII to
# ASCII (Japanese text writes "２匹" and "ＡＢＣ"), the ideographic space to a space, halfwidth
# Katakana to fullwidth, as Lucene's CJKWidthFilter does.
_HALFWIDTH_KANA = ("ｦｧｨｩｪｫｬｭｮｯｰｱｲｳｴｵｶｷｸｹｺｻｼｽｾｿﾀﾁﾂﾃﾄﾅﾆﾇﾈﾉﾊﾋﾌﾍﾎﾏﾐﾑﾒﾓﾔﾕﾖﾗﾘﾙﾚﾛﾜﾝﾞﾟ",
                   "ヲァィゥェォャュョッーアイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン゛゜")
_WIDTH = {**{cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)}, 0x3000: 0x20,
          **{ord(a): ord(b) for a, b in zip(*_HALFWIDTH_KANA)},
          # the half-width voiced marks as the combining ones, composed with the kana before them
          # (ｶﾞ is ガ, as Lucene's CJKWidthFilter and NFKC make it): then the text is one
          # character shorter for each, and spans are not given for it
          0xFF9E: 0x3099, 0xFF9F: 0x309A}
_WIDE = _LazyPattern("_WIDE", "[\uFF01-\uFF5E\u3000\uFF66-\uFF9F]")
# a run of spaceless scripts as split's group: the parts alternate between other text and runs
_SPACELESS_SPLIT = _LazyPattern("_SPACELESS_SPLIT", f"([{_SPACELESS}]+)")
_SPACELESS_SPLIT_U = _LazyPattern("_SPACELESS_SPLIT_U", f"([{_SPACELESS}{_SPACELESS_MORE}]+)")

# The punctuation inside those blocks (Tokenizer's uax29_punctuation): Thai's baht sign, fongman,
# angkhankhu and khomut; Myanmar's section marks ၊ and ။ (a Burmese sentence's end); Khmer's khan
# ។, bariyoosan, camnuc pii kuuh, beyyal, phnaek muan, koomuut and riel sign; the Katakana middle
# dot ・ (ジョン・スミス). Unicode's word rules (UAX #29) break at each, as Lucene's tokenizer does
# before its CJK bigrams: read inside a run, ジョン・スミス gave the bigrams ン・ and ・ス, and every
# Burmese sentence a term of its last letter and ။. Myanmar's symbols ၌ ၍ ၎ ၏ are words, and the
# voicing marks ゛ ゜ and the double hyphen ゠ are Katakana to UAX #29: they stay in their runs.
_RUN_BREAKS = "\u0E3F\u0E4F\u0E5A\u0E5B\u104A\u104B\u17D4-\u17D6\u17D8-\u17DB\u30FB"


def _class_without(body, breaks):
    """The body of a character class (characters and ``a-b`` ranges, written as characters)
    without the code points of ``breaks`` (the same form): ``re`` has no class subtraction."""
    def ranges(text):
        out, i = [], 0
        while i < len(text):
            if i + 2 < len(text) and text[i + 1] == "-":
                out.append((ord(text[i]), ord(text[i + 2])))
                i += 3
            else:
                out.append((ord(text[i]), ord(text[i])))
                i += 1
        return out

    drop = {cp for a, b in ranges(breaks) for cp in range(a, b + 1)}
    kept = []
    for a, b in ranges(body):
        start = None
        for cp in range(a, b + 2):
            if cp <= b and cp not in drop:
                start = cp if start is None else start
            elif start is not None:
                kept.append(chr(start) if start == cp - 1 else f"{chr(start)}-{chr(cp - 1)}")
                start = None
    return "".join(kept)


_SPACELESS_P = _class_without(_SPACELESS + _SPACELESS_MORE, _RUN_BREAKS)
_SPACELESS_RUN_P = _LazyPattern("_SPACELESS_RUN_P", f"[{_SPACELESS_P}]+")
_SPACELESS_SPLIT_P = _LazyPattern("_SPACELESS_SPLIT_P", f"([{_SPACELESS_P}]+)")
# with tai_scripts the Tai scripts too (._tai), with either reading of punctuation
_SPACELESS_RUN_PT, _SPACELESS_SPLIT_PT = (_LazyPattern("_SPACELESS_RUN_PT", f"[{_SPACELESS_P}{_TAI}]+"),
                                          _LazyPattern("_SPACELESS_SPLIT_PT", f"([{_SPACELESS_P}{_TAI}]+)"))
_SPACELESS_RUN_UT, _SPACELESS_SPLIT_UT = (_LazyPattern("_SPACELESS_RUN_UT", f"[{_SPACELESS}{_SPACELESS_MORE}{_TAI}]+"),
                                          _LazyPattern("_SPACELESS_SPLIT_UT", f"([{_SPACELESS}{_SPACELESS_MORE}{_TAI}]+)"))

def _fold_width(text):
    # a regular expression finds the few wide characters faster than str.translate walks them all
    folded = _WIDE.sub(lambda m: chr(_WIDTH[ord(m.group())]), text)
    if "\u3099" in folded or "\u309a" in folded:
        folded = _nfc(folded)
    return folded


# Combining marks (Unicode's Mn, Mc, Me) belong to the letter before them: Devanagari's vowel
# signs and virama (हिन्दी is ह ि न ् द ी), Bengali's and Tamil's, Arabic's and Hebrew's vowel
# points, an accent written apart (e + U+0301). \w matches none of them, so the default token
# pattern cut "हिन्दी भाषा में लिखा गया पाठ" down to one term, "गय". Unicode's word boundaries
# (UAX #29, Lucene's StandardTokenizer) keep a mark in its word: so does this pattern.
_UNICODE_WORDS = [None, None]
_MARKS = [None]


def _mark_class():
    """The body of a regular expression class of the combining marks (categories Mn, Mc, Me,
    and any other character with a combining class), from the running Python's Unicode data, in
    the planes where scripts write them; built at first use (about 15 ms) and kept."""
    marks = _MARKS[0]
    if marks is None:
        ranges, start, last = [], None, None
        for cp in list(range(0x20000)) + list(range(0xE0100, 0xE01F0)):
            ch = chr(cp)
            if _category(ch)[0] == "M" or _combining(ch):
                if start is None or cp != last + 1:
                    if start is not None:
                        ranges.append((start, last))
                    start = cp
                last = cp
        ranges.append((start, last))
        marks = _MARKS[0] = "".join(f"\\U{a:08X}-\\U{b:08X}" for a, b in ranges)
    return marks


# Punctuation that Unicode's word rules (UAX #29: MidLetter, and the quotes of WB7b/WB7c) keep
# inside a word between two letters (Tokenizer's uax29_punctuation): Hebrew's gershayim and geresh
# in acronyms and loan words (צה״ל, ג׳ירפה), with the ASCII quotes most Hebrew text types for them
# (צה"ל, ג'ירפה), read as the Hebrew marks (_HEBREW_QUOTES); and the middle dot of Catalan's
# "col·lecció", between two l's only: elsewhere it is mostly a product of units (kJ·mol⁻¹ in 96
# of Wikispeedia's articles), whose parts are better terms than the whole. Read as breaks, צה״ל gave
# צה, its last letter left alone: no term of the acronym matched it written whole.
_MID_WORD = "(?:(?<=[lL])\u00B7(?=[lL])|(?<=[\u05D0-\u05EA])[\u05F3\u05F4](?=[\u05D0-\u05EA]))"
_HEBREW_QUOTES = [None]


def _fold_hebrew_quotes(text):
    """``text`` with an ASCII double or single quote between two Hebrew letters (the first
    perhaps pointed) written as the gershayim or the geresh it stands for (one character for
    one: spans keep their places)."""
    if '"' not in text and "'" not in text:
        return text
    quotes = _HEBREW_QUOTES[0]
    if quotes is None:
        quotes = _HEBREW_QUOTES[0] = re.compile("(?<=[\u05D0-\u05EA\u0591-\u05C7])[\"'](?=[\u05D0-\u05EA])")
    return quotes.sub(lambda m: "\u05F4" if m.group() == '"' else "\u05F3", text)


def _unicode_word_regex(mid_word=False):
    """The default token pattern with combining marks inside a word: a word character, then
    word characters or marks, two at least (the marks' class: :func:`_mark_class`); with
    ``mid_word``, also the punctuation of ``_MID_WORD`` between two of its word characters."""
    compiled = _UNICODE_WORDS[mid_word]
    if compiled is None:
        chars = f"[\\w{_mark_class()}]"
        pattern = (f"(?u)\\b\\w{chars}+" if not mid_word else
                   # two characters at least, as without: a letter and a mark or letter, or a
                   # letter, the punctuation and a letter
                   f"(?u)\\b(?=\\w(?:{chars}|{_MID_WORD}))\\w{chars}*(?:{_MID_WORD}\\w{chars}*)*")
        compiled = _UNICODE_WORDS[mid_word] = re.compile(pattern)
    return compiled


# Putting a text in NFC sorts each run of combining marks, in time quadratic in the run's length
# (CPython: 10,000 marks after one letter took 0.1 s, 160,000 took 24 s): a hostile query or
# document could hold a search or a write for minutes. No writing system stacks more than a few
# marks on a letter, and Unicode's stream-safe text format (UAX #15) bounds a run at 30: a run
# longer than MAX_MARKS keeps its first MAX_MARKS before the text is normalised.
MAX_MARKS = 30
_LONG_MARK_RUN = [None]


def _nfc(text):
    """``text`` in NFC, in time linear in its length (see :data:`MAX_MARKS`)."""
    if _is_normalized("NFC", text):
        return text
    long_run = _LONG_MARK_RUN[0]
    if long_run is None:
        long_run = _LONG_MARK_RUN[0] = re.compile(f"[{_mark_class()}]{{{MAX_MARKS + 1},}}")
    if long_run.search(text) is not None:
        text = long_run.sub(lambda m: m.group()[:MAX_MARKS], text)
    return _normalize("NFC", text)


# The optional marks of Arabic and Hebrew: Arabic's short vowels and other tashkeel, Quranic
# annotation and the tatweel that stretches a word; Hebrew's vowel points and cantillation. Most
# text leaves them out, a dictionary or a scripture writes them: a word is one term either way
# (as Lucene's Arabic normaliser and the Hebrew analysers remove them). Indic vowel signs are
# letters' vowels, not optional, and stay.
_OPTIONAL_POINTS = ("[\u0610-\u061A\u0640\u064B-\u065F\u0670\u06D6-\u06DC\u06DF-\u06E4\u06E7\u06E8"
                    "\u06EA-\u06ED\u0591-\u05BD\u05BF\u05C1\u05C2\u05C4\u05C5\u05C7]+")
# compiled at the first text that is not ASCII (a _LazyPattern's lookup costs more than the
# search, which every such text runs)
_POINTS = [None]


# The invisible characters a word is read without (Tokenizer's drop_ignorables): _folds.IGNORABLE


# The zero-width non-joiner between two characters of the Brahmic scripts of India and Sri Lanka
# (Devanagari to Malayalam, and Sinhala; Tokenizer's indic_zwnj): there it only asks for another
# shape of a conjunct (Bengali র‌্যাব, "RAB", the ra written whole before ya rather than as a
# reph; Hindi क्‌ष, the virama shown), never for a break, as UAX #29 (ZWNJ is Extend, rule WB4)
# and ICU's NFKC_Casefold (which removes it) read it. Read as a break, it cut the word, and the
# part after it, starting with a mark, lost that mark: র‌্যাব gave the term যাব ("will go"), the
# র lost, and never matched র্যাব. Persian's ZWNJ (between Arabic letters) still cuts.
_INDIC_ZWNJ = [None]


def _indic_zwnj():
    """The pattern of the zero-width non-joiners between two characters of U+0900-U+0DFF
    (compiled at first use)."""
    zwnj = _INDIC_ZWNJ[0]
    if zwnj is None:
        zwnj = _INDIC_ZWNJ[0] = re.compile("(?<=[\u0900-\u0DFF])\u200c+(?=[\u0900-\u0DFF])")
    return zwnj


def _drop_indic_zwnj(text):
    """``text`` without the zero-width non-joiners of :func:`_indic_zwnj`."""
    return text if "\u200c" not in text else _indic_zwnj().sub("", text)


def _indic_zwnj_places(text):
    """The places in ``text`` of the characters :func:`_drop_indic_zwnj` leaves out."""
    return {i for m in _indic_zwnj().finditer(text) for i in range(m.start(), m.end())}


# Letters of the Arabic script written in more than one way for one sound (Tokenizer's
# fold_variants), each read as one, as Lucene's Arabic and Persian normalisation filters read
# them: alef with hamza above or below, with madda, and alef wasla as the bare alef (hamza's
# spelling varies from writer to writer); teh marbuta as heh and alef maksura as yeh (written
# for each other at a word's end); the Persian yeh and keheh as the Arabic yeh and kaf, and
# heh with yeh above and heh goal as heh (Persian and Urdu text typed on an Arabic keyboard, or
# the other way round, gives the other code point: "کتاب" and "كتاب" are one book). Urdu's yeh
# barree (ے) is a letter of its own there, and stays. And Greek's accents and breathings (tonos,
# dialytika; the polytonic script's marks) left out and its final sigma read as sigma, as Lucene's
# GreekLowerCaseFilter does: Greek written in capitals drops the accents (ΛΟΓΟΣ is λογος, not
# λόγος), and a query is mostly typed without them; Russian's ё read as е, which most Russian
# text writes in its place. Each of these letters belongs to its script alone, so no other
# language reads differently.
_LETTER_VARIANTS = {0x0622: 0x0627, 0x0623: 0x0627, 0x0625: 0x0627, 0x0671: 0x0627, 0x0629: 0x0647,
                    0x0649: 0x064A, 0x06CC: 0x064A, 0x06A9: 0x0643, 0x06C0: 0x0647, 0x06C1: 0x0647,
                    0x03C2: 0x03C3, 0x0451: 0x0435, 0x0401: 0x0415}
_GREEK_ACCENTED = "\u0386-\u03CE\u03D3\u03D4\u1F00-\u1FFF"


def _variant_table():
    """``_LETTER_VARIANTS`` and each accented letter of Greek (``_GREEK_ACCENTED``: its NFD is a
    Greek letter and marks) as that letter, for ``str.translate``."""
    table = dict(_LETTER_VARIANTS)
    for cp in list(range(0x0386, 0x03D5)) + list(range(0x1F00, 0x2000)):
        decomposed = _normalize("NFD", chr(cp))
        if (len(decomposed) > 1 and 0x0370 <= ord(decomposed[0]) < 0x0400 and _category(chr(cp))[0] == "L"
                and all(_combining(c) for c in decomposed[1:])):
            table[cp] = ord(decomposed[0])
    return table


# Compatibility characters that are letters or digits written another way, read as what they
# stand for (their NFKC, as ICU's normaliser for search reads every compatibility character):
# the Latin ligatures that text taken from a PDF keeps ("ﬁnance" is "finance"), the Armenian
# ones and Hebrew's presentation forms, Arabic's presentation forms (the shapes a letter takes
# at a word's start, middle or end, which Arabic text from a PDF is often written in: "ﻛﺘﺎﺏ"
# is "كتاب"), Roman numerals (Ⅲ is "iii"), the mathematical letters and digits (𝐀, 𝟚) and the
# long s. Other compatibility characters keep their reading: full NFKC would also write "Apple™"
# as the word "appletm", "m²" as "m2" and "½" as "1⁄2"; and the micro sign stays apart from the
# Greek mu (a word with it is one term either way).
_COMPATIBILITY = ("\u017F\u2160-\u2188\uFB00-\uFB4F\uFB50-\uFDFF\uFE70-\uFEFC", "\U0001D400-\U0001D7FF")
# The decimal digits of the Basic Multilingual Plane that are not ASCII (Unicode 14's; a digit a
# later version adds is folded where the text holds another candidate), less the fullwidth ones,
# which width folding reads (looked for, the quarter of Japanese articles that write "２０１２"
# each cost a pass over the whole text: 27 % of livedoor's analysis)
_DIGITS_BMP = ("\u0660-\u0669\u06F0-\u06F9\u07C0-\u07C9\u0966-\u096F\u09E6-\u09EF\u0A66-\u0A6F\u0AE6-\u0AEF"
               "\u0B66-\u0B6F\u0BE6-\u0BEF\u0C66-\u0C6F\u0CE6-\u0CEF\u0D66-\u0D6F\u0DE6-\u0DEF\u0E50-\u0E59"
               "\u0ED0-\u0ED9\u0F20-\u0F29\u1040-\u1049\u1090-\u1099\u17E0-\u17E9\u1810-\u1819\u1946-\u194F"
               "\u19D0-\u19D9\u1A80-\u1A89\u1A90-\u1A99\u1B50-\u1B59\u1BB0-\u1BB9\u1C40-\u1C49\u1C50-\u1C59"
               "\uA620-\uA629\uA8D0-\uA8D9\uA900-\uA909\uA9D0-\uA9D9\uA9F0-\uA9F9\uAA50-\uAA59\uABF0-\uABF9")
# (compiled at first use: a first look for a character to fold, one class of the candidates of
# the Basic Multilingual Plane and any character beyond it, a third of the time of two patterns
# tried in turn; the compatibility characters; the digits alone, each written as its ASCII digit:
# Lucene's DecimalDigitFilter, "٢٠٢٤", "२०२४" and "2024" one term)
_VARIANTS = []


def _fold_variants(text, lower=True, radicals=False):
    """``text`` with the compatibility characters of ``_COMPATIBILITY`` in NFKC, the letter
    variants of ``_LETTER_VARIANTS`` and every decimal digit that is neither ASCII nor fullwidth
    folded. The letters and digits are folded one character for one; a compatibility character
    may become more than one (ﬁ, Ⅲ), and the text's spans are then read character by character
    (:meth:`Tokenizer.spans`). ``lower``: the text was lowercased (𝐀 and Ⅲ are then lowercased
    too). ``radicals``: the radicals of ``_RADICALS`` in NFKC too (``fold_radicals``), looked for
    in the same first look."""
    if not _VARIANTS:
        letters = "".join(chr(cp) for cp in _LETTER_VARIANTS)
        first = f"{letters}{_GREEK_ACCENTED}{_COMPATIBILITY[0]}{_DIGITS_BMP}\U00010000-\U0010FFFF"
        _VARIANTS.extend((re.compile(f"[{first}]"),
                          re.compile(f"[{''.join(_COMPATIBILITY)}]+"), re.compile("[^\\D0-9\uFF10-\uFF19]"),
                          _variant_table(), re.compile(f"[{first}{_RADICAL_CLASS}]")))
    maybe, compatibility, digits, table, maybe_radicals = _VARIANTS
    if (maybe_radicals if radicals else maybe).search(text) is None:
        return text
    if radicals:
        text = _fold_radicals(text)
    # the letters folded before the compatibility characters are opened, and each of those read
    # once and kept (translate folds one character for one: the same text either way): U+FDFA
    # reads as 18 characters, and a text of them took 6x an Arabic text's time a byte, its NFKC
    # asked again at each and its expansion walked again by translate
    text = text.translate(table)
    alone = _COMPATIBILITY_ALONE[lower]
    return digits.sub(lambda m: chr(0x30 + _decimal(m.group())),
                      compatibility.sub(lambda m: alone.get(m.group()) or _open_compatibility(m.group(), lower, table),
                                        text))



# The Kangxi radicals and the two CJK radicals that have a compatibility form (U+2E9F, U+2EF3):
# each is its ideograph in NFKC (⼈ is 人), and a PDF's text layer often holds them in its place
_RADICAL_CLASS = RADICAL_CLASS
_RADICALS = re.compile(f"[{_RADICAL_CLASS}]")


def _fold_radicals(text):
    """``text`` with the radicals of ``_RADICALS`` as their NFKC (the ideographs)."""
    if _RADICALS.search(text) is None:
        return text
    return _RADICALS.sub(lambda m: _normalize("NFKC", m.group()), text)


def _unicode_fold(text, drop_ignorables=False, hebrew_quotes=False, fold_variants=False, lower=True,
                  fold_radicals=False, indic_zwnj=False, more=()):
    """A non-ASCII text as the word rule reads it: in NFC (an accent written apart joined to its
    letter, as most text has it, so that both spellings give one term), the dot that lowercasing
    Turkish İ leaves (i + U+0307) dropped, so that "İstanbul" is "istanbul", (``drop_ignorables``)
    without the invisible characters of ``_folds.IGNORABLE`` (but the joiners of an emoji
    sequence, with ``emoji_sequences`` in ``more``), (``hebrew_quotes``) with ASCII quotes
    between Hebrew letters as the marks they stand for (:func:`_fold_hebrew_quotes`), and
    (``fold_variants``) with compatibility characters, the letter variants of the Arabic script,
    Greek and Russian, and every decimal digit folded (:func:`_fold_variants`; ``lower``: the text
    was lowercased), (``fold_radicals``) the CJK radicals of ``_RADICALS`` in NFKC, and
    (``indic_zwnj``) without the zero-width non-joiners inside Indic words
    (:func:`_drop_indic_zwnj`), before NFC (which may then join a vowel's two parts), and the
    later foldings named in ``more`` (:mod:`._folds`)."""
    if drop_ignorables:
        text = _fold_joined(text, more)     # (the joiner of a chillu written in three, before it goes)
        text = _drop_ignorable(text, "emoji_sequences" in more)
    if indic_zwnj:
        text = _drop_indic_zwnj(text)
    if hebrew_quotes:
        text = _fold_hebrew_quotes(text)
    text = _nfc(text)
    if fold_variants:
        text = _fold_variants(text, lower, fold_radicals)
    elif fold_radicals:
        text = _fold_radicals(text)
    if more:
        text = _fold_more(text, more, lower)
    return text.replace("i\u0307", "i") if "\u0307" in text else text


def _strip_points(text):
    """``text`` without the optional vowel points of Arabic and Hebrew (``_OPTIONAL_POINTS``):
    run on the words' part of a text only (a run of Han or kana holds none, and searching it
    cost 5-10 % of a Japanese text's analysis)."""
    points = _POINTS[0]
    if points is None:
        points = _POINTS[0] = re.compile(_OPTIONAL_POINTS)
    return points.sub("", text) if points.search(text) is not None else text


def analyzer_for_language(language):
    """The analyzer ``language=`` picks: ``"ja"`` SudachiPy where installed, else fugashi;
    ``"zh"`` jieba, but ``"cjk"`` for traditional Chinese (zh-Hant, zh-TW, zh-HK, zh-MO: jieba's
    dictionary is simplified); any other language (or None) the script rule ``"cjk"``. An ImportError names
    the extra to install when the language's analyser is missing.

    Examples
    --------
    >>> from learnsim.text import analyzer_for_language
    >>> analyzer_for_language(None), analyzer_for_language("en")
    ('cjk', 'cjk')
    """
    if language is None:
        return "cjk"
    if not isinstance(language, str) or not re.fullmatch(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*", language):
        raise ValueError(f"language must be a language code such as 'en', 'ja' or 'zh'; got {language!r}")
    from ._language_codes import check_not_a_country
    check_not_a_country(language)       # jp, cn: read as any other language, bigrams, without a word
    choices = LANGUAGE_ANALYZERS.get(_primary_language(language))
    if choices is None or (choices == ("jieba",) and _traditional_chinese(language)):
        return "cjk"        # jieba cuts traditional text into single characters: bigrams find more
    import importlib.util

    for name in choices:
        if importlib.util.find_spec(_ANALYZER_MODULES[name][0]) is not None:
            return name
    raise ImportError(f"language={language!r} needs {' or '.join(_ANALYZER_MODULES[n][2] for n in choices)} "
                      f"(pip install learnsim[{_primary_language(language)}]); analyzer='cjk' (character bigrams) "
                      "needs nothing")


def check_analysis(analysis=None):
    """``analysis`` as the three keywords of a text's analysis, ``{"analyzer": ...,
    "cjk_unigrams": ..., "unicode_words": ...}``, checked (None: the defaults, character bigrams
    and Unicode's words; a key left out takes its default). What a fit passes to every
    vectoriser it builds and to its baselines, so that all of them read a language alike.

    Examples
    --------
    >>> from learnsim.text import check_analysis
    >>> check_analysis(None)
    {'analyzer': 'cjk', 'cjk_unigrams': False, 'unicode_words': True}
    """
    if analysis is None:
        return {"analyzer": "cjk", "cjk_unigrams": False, "unicode_words": True}
    if not isinstance(analysis, dict) or set(analysis) - {"analyzer", "cjk_unigrams", "unicode_words"}:
        raise ValueError(f"analysis must be a dict of 'analyzer', 'cjk_unigrams' and 'unicode_words'; got {analysis!r}")
    analyzer = analysis.get("analyzer", "cjk")
    if analyzer not in ANALYZERS:
        raise ValueError(f"analyzer must be one of {', '.join(map(repr, ANALYZERS))}; got {analyzer!r}")
    return {"analyzer": analyzer, "cjk_unigrams": bool(analysis.get("cjk_unigrams", False)),
            "unicode_words": bool(analysis.get("unicode_words", True))}


def resolve_analysis(language=None, analyzer=None, cjk_unigrams=False):
    """The analysis (:func:`check_analysis`) that ``language=`` / ``--language``, ``analyzer=`` /
    ``--analyzer`` and ``cjk_unigrams`` ask for: an analyzer given is taken (it must read the
    language given with it), else the language's (:func:`analyzer_for_language`), else
    character bigrams.

    Examples
    --------
    >>> from learnsim.text import resolve_analysis
    >>> resolve_analysis("en")
    {'analyzer': 'cjk', 'cjk_unigrams': False, 'unicode_words': True}
    >>> resolve_analysis(analyzer="words")["analyzer"]
    'words'
    """
    if analyzer is not None and analyzer not in ANALYZERS:
        raise ValueError(f"analyzer must be one of {', '.join(map(repr, ANALYZERS))}; got {analyzer!r}")
    if language is not None:
        picked = analyzer_for_language(language) if analyzer is None else analyzer
        reads = {"sudachi": "ja", "fugashi": "ja", "jieba": "zh"}.get(analyzer)
        if reads is not None and _primary_language(language) != reads:
            raise ValueError(f"analyzer={analyzer!r} reads {'Chinese' if reads == 'zh' else 'Japanese'}, "
                             f"not language={language!r}")
        analyzer = picked
    return check_analysis({"analyzer": analyzer or "cjk", "cjk_unigrams": bool(cjk_unigrams)})


def analysis_of(vectorizer):
    """The analysis (:func:`check_analysis`) of a fitted vectoriser, or the default for one
    without terms (a sentence encoder): what a model's baselines read text with."""
    if vectorizer is None or not hasattr(vectorizer, "token_pattern"):
        return check_analysis(None)
    params = tokenizer_params(vectorizer)
    return {key: params[key] for key in ("analyzer", "cjk_unigrams", "unicode_words")}


def tokenizer_params(vectorizer):
    """The :class:`Tokenizer` keywords of a vectoriser's settings (TextVectorizer, the hashing
    and Dask vectorisers): the one place where a vectoriser's analysis becomes a tokenizer's."""
    return {"lowercase": vectorizer.lowercase, "token_pattern": vectorizer.token_pattern,
            "stop_words": vectorizer.stop_words, "stem": vectorizer.stem, "ngram_range": vectorizer.ngram_range,
            "analyzer": getattr(vectorizer, "analyzer", "words"),
            "cjk_unigrams": bool(getattr(vectorizer, "cjk_unigrams", False)),
            # a vectoriser saved before unicode_words existed read with the token pattern alone,
            # and one saved before a later reading existed reads without it
            "unicode_words": bool(getattr(vectorizer, "unicode_words", False)),
            **{name: bool(getattr(vectorizer, name, False)) for name in LATER_READINGS}}




def _load_sudachi():
    try:
        from sudachipy import Dictionary, SplitMode
        dictionary = Dictionary()
        # SudachiPy 0.7 names it tokenizer(); create() before
        make = getattr(dictionary, "tokenizer", None) or dictionary.create
        tokenizer = make(mode=SplitMode.A)
    except ImportError:
        raise ImportError("analyzer='sudachi' needs SudachiPy and its core dictionary: pip install learnsim[ja] "
                          "(or pip install sudachipy sudachidict_core)") from None
    except Exception as exc:  # noqa: BLE001 - SudachiPy raises its own errors for a missing dictionary
        raise ImportError(f"analyzer='sudachi' could not load SudachiPy's dictionary ({exc}): "
                          "pip install sudachidict_core") from None

    def segment(run):
        # short units (mode A), each in Sudachi's normalised form ("附属" and "付属" alike)
        return [(m.begin(), m.end(), m.normalized_form()) for m in tokenizer.tokenize(run)]
    return segment


def _load_fugashi():
    try:
        import os

        import fugashi
        import unidic_lite
        # UniDic lite by name: fugashi.Tagger() takes the full UniDic (the unidic package) where
        # that is installed too, which cuts words otherwise, and a model fitted with one read its
        # queries with the other without a word said
        dicdir = unidic_lite.DICDIR
        tagger = fugashi.Tagger(f'-d "{dicdir}" -r "{os.path.join(dicdir, "mecabrc")}"')
    except ImportError:
        raise ImportError("analyzer='fugashi' needs fugashi and its UniDic lite dictionary: pip install fugashi "
                          "unidic-lite") from None
    except RuntimeError as exc:
        raise ImportError(f"analyzer='fugashi' could not load a MeCab dictionary ({exc}): pip install "
                          "unidic-lite") from None

    def segment(run):
        out, at = [], 0
        for word in tagger(run):
            surface = word.surface
            start = run.find(surface, at)
            if start < 0:           # MeCab changed the text (it never should): no place to give
                start = at
            at = start + len(surface)
            out.append((start, at, surface))
        return out
    return segment


# analyzer -> (module looked for, loader, pip package names), and the runs it segments
_ANALYZER_MODULES = {"sudachi": ("sudachipy", _load_sudachi, "SudachiPy"),
                     "fugashi": ("fugashi", _load_fugashi, "fugashi"),
                     "jieba": ("jieba", _load_jieba, "jieba")}
_ANALYZER_RUNS = {"sudachi": _JAPANESE_RUN, "fugashi": _JAPANESE_RUN, "jieba": _HAN_RUN}
_SEGMENTERS = {}        # one loaded analyser a process: a dictionary takes seconds and memory
# An analyser reads a run at most this many characters at a time: MeCab (fugashi) ends the process
# with a segmentation fault on a run of some 500,000 Han characters, SudachiPy refuses one of
# 49,149 bytes. Runs stop at punctuation, so a longer one is no sentence, and a word cut where a
# slice ends is lost in it alone.
_MAX_ANALYSED_RUN = 4096


def _segmenter(analyzer, jieba_search=False):
    key = "jieba search" if jieba_search and analyzer == "jieba" else analyzer
    if key not in _SEGMENTERS:
        from ._segment_memo import Memo     # a fit reads each text many times: each run analysed once

        _SEGMENTERS[key] = Memo(_ANALYZER_MODULES[analyzer][1](*((True,) if key != analyzer else ())))
    return _SEGMENTERS[key]


def _bigrams(run, unigrams):
    """Overlapping character bigrams of a run (a lone character: itself), with its characters
    first where ``unigrams``."""
    if len(run) == 1:
        return [run]
    grams = [run[i:i + 2] for i in range(len(run) - 1)]
    return list(run) + grams if unigrams else grams


def _check_ngram_range(ngram_range):
    try:
        min_n, max_n = ngram_range
    except (TypeError, ValueError):
        raise ValueError(f"ngram_range must be a pair (min_n, max_n); got {ngram_range!r}") from None
    for n in (min_n, max_n):
        if not isinstance(n, numbers.Integral) or isinstance(n, bool):
            raise ValueError(f"ngram_range must hold two integers; got {ngram_range!r}")
    if not 1 <= min_n <= max_n:
        raise ValueError(f"ngram_range must satisfy 1 <= min_n <= max_n; got {ngram_range!r}")
    return int(min_n), int(max_n)


class Tokenizer:
    """Turn one document into a list of terms: ``Tokenizer(...)(doc) -> list[str]``.

    The steps, in order: lowercase; with an analyzer other than ``"words"``, fold full-width
    letters and digits to ASCII and cut out the runs of scripts written without spaces (Han,
    Hiragana, Katakana, Hangul, Thai); extract words from the rest with ``token_pattern``, drop
    stop words and stem them; turn each run into character bigrams (``"cjk"``) or the words of a
    morphological analyser; form n-grams (joined with a single space) over the terms in order.
    Stop words and stemming are a language's (or the list given), so they touch words only, never
    a bigram or a Japanese or Chinese word.

    Parameters
    ----------
    lowercase : bool, default=True
        Lowercase the document before tokenising.
    token_pattern : str, default=r"(?u)\\b\\w\\w+\\b"
        Regular expression for a word (scikit-learn's default: words of two or more word
        characters). With one capturing group, the group is the token.
    stop_words : None, a language name or iterable of str, default=None
        Words to drop. ``"english"`` is scikit-learn's ``ENGLISH_STOP_WORDS``; ``"french"``,
        ``"german"`` and the other names of :data:`STOP_LANGUAGES` Snowball's lists. Matching ignores
        case, so ``"The"`` is dropped even with ``lowercase=False``. Stop words are removed
        before stemming, so list surface forms.
    stem : None, "porter", a Snowball language name or "arabic_light" / "hindi_light", default=None
        Porter stemming or a language's Snowball stemmer (``"french"``), via the optional PyStemmer
        package (``pip install learnsim[stem]``), or Lucene's light Arabic or Hindi one (no PyStemmer).
        Stems of words already seen are cached.
    ngram_range : (int, int), default=(1, 1)
        Smallest and largest n-gram length; ``(1, 2)`` gives words and word bigrams.
    analyzer : {"cjk", "words", "sudachi", "fugashi", "jieba"}, default="cjk"
        How text without spaces between words is cut (:data:`ANALYZERS`): ``"cjk"`` into
        overlapping character bigrams, as Lucene's CJK analyser; ``"words"`` not at all (the
        token pattern alone; a Japanese sentence is one term); ``"sudachi"`` (SudachiPy, short
        units, normalised forms) or ``"fugashi"`` (MeCab with UniDic) into Japanese words,
        ``"jieba"`` into Chinese words: ``pip install learnsim[ja]`` or ``learnsim[zh]``. Runs
        of scripts the analyser does not read are bigrams.
    cjk_unigrams : bool, default=False
        With bigrams, also each character of a run (a lone character is always kept).
    unicode_words : bool, default=True
        Read a text that is not ASCII by Unicode's rules for words: in NFC (an accent written
        apart joined to its letter), the dot of a lowercased Turkish İ and the optional vowel
        points of Arabic and Hebrew dropped (a word is one term with or without them), and,
        with the default token pattern, combining marks kept in the word they follow
        (Devanagari's, Bengali's and Tamil's vowel signs), as Unicode's word boundaries (UAX #29)
        and Lucene's standard tokenizer keep them; Lao, Myanmar and Khmer (written without
        spaces) cut into bigrams as Thai is. False: the token pattern alone, where ``\\w``
        matches no mark (``"हिन्दी"`` gave no term: its letters stand alone between marks, and a
        single letter is no word); what models saved before this setting existed do. ASCII text
        is read alike either way.
    drop_ignorables : bool, default=True
        With ``unicode_words``, leave out the invisible characters that say nothing of a word
        before words are found: the soft hyphen, the zero-width joiner, the word joiner, the
        zero-width no-break space (byte order mark), bidirectional marks and isolates, variation
        selectors and tags (Unicode's default-ignorable characters, as ICU's NFKC_Casefold
        removes them), so that ``"co\\u00adoperate"`` is ``"cooperate"``. The zero-width space
        and non-joiner still cut a word. False: each cuts a word in two; what models saved before
        this setting existed do.
    uax29_punctuation : bool, default=True
        With ``unicode_words``, read punctuation as Unicode's word rules (UAX #29) do: the
        punctuation inside the blocks of the spaceless scripts ends their run (the Katakana middle
        dot in ``"ジョン・スミス"``, Myanmar's ``"။"``, Khmer's ``"។"``, Thai's ``"๚"``), where it was
        read as a character of the run and gave bigrams such as ``"ン・"``; and the middle dot of
        Catalan and Hebrew's gershayim and geresh between two letters stay in their word
        (``"col·lecció"``, ``"צה״ל"``, ``'צה"ל'``), where they cut it. False: read as before; what
        models saved before this setting existed do.
    fold_variants : bool, default=True
        With ``unicode_words``, read the letters of the Arabic script that are written in more
        than one way as one (alef with hamza or madda as alef, teh marbuta as heh, alef maksura
        and the Persian yeh as yeh, keheh as kaf), as Lucene's Arabic and Persian normalisation
        filters do; every script's decimal digits as ASCII digits (``"٢٠٢٤"`` is ``"2024"``), as
        its DecimalDigitFilter does; and the compatibility characters that are letters or digits
        written another way as what they stand for (their NFKC: the ligatures of text from a PDF,
        ``"ﬁnance"`` is ``"finance"``; Arabic's presentation forms; Roman numerals; mathematical
        letters and digits), as ICU's normaliser does; Greek's accents left out and its final
        sigma read as sigma (``"λόγος"`` is ``"ΛΟΓΟΣ"``), as Lucene's GreekLowerCaseFilter does,
        and Russian's ``"ё"`` read as ``"е"``. False: each is a term of its own;
        what models saved before this setting existed do.
    fold_radicals : bool, default=True
        With ``unicode_words``, read the Kangxi radicals (U+2F00-U+2FD5) and the two CJK radicals
        with a compatibility form as the ideographs they look like (their NFKC: ``"⼈⼝"`` is
        ``"人口"``), as ICU's normaliser does: text taken from a PDF of Chinese or Japanese often
        holds them in place of the ideographs, and they were read as symbols, no term at all.
        False: read as before; what models saved before this setting existed do.
    indic_zwnj : bool, default=True
        With ``unicode_words``, leave out the zero-width non-joiner between two characters of
        the Indic scripts (Devanagari to Malayalam, Sinhala), where it asks for another shape of
        a conjunct and is no break (UAX #29; ICU's NFKC_Casefold removes it): Bengali
        ``"র\u200c্যাব"`` is ``"র্যাব"``, where it cut the word, lost the র and gave ``"যাব"``, another
        word. Between Persian letters it still cuts. False: read as before; what models saved
        before this setting existed do.
    sara_am : bool, default=True
        With ``unicode_words``, read Thai's and Lao's sara am written as two characters (the
        nikhahit and sara aa, ``"ํา"``, ``"ໍາ"``, a tone mark before or between them) as the one
        character most text writes (``"ำ"``, ``"ຳ"``; NFKC opens the one into the two, as ICU's
        folding does): ``"น้ํา"`` and ``"น้ำ"`` (water) shared only their first bigram. False: read as
        before; what models saved before this setting existed do.
    ela_geminada : bool, default=True
        With ``unicode_words``, read Catalan's ``"ŀ"`` (U+0140, and ``"Ŀ"``) as ``"l·"``, its
        NFKC (as ICU's folding reads it), so that ``"coŀlecció"`` and ``"col·lecció"`` are one
        term, where they were two. ``"col.lecció"`` stays two words. False: read as before; what
        models saved before this setting existed do.
    fold_squares : bool, default=True
        With ``unicode_words``, read the CJK compatibility squares and enclosed CJK letters
        (U+3200-U+33FF) as their NFKC, as ICU's normaliser does: ``"㎏"`` is ``"kg"``, ``"㍻"``
        ``"平成"``, ``"㌔"`` ``"キロ"``, where they were symbols and gave no term. False: read as
        before; what models saved before this setting existed do.
    casefold : bool, default=True
        With ``unicode_words`` and ``lowercase``, case-fold a text that is not ASCII
        (``str.casefold``, Unicode's full case folding, as ICU's NFKC_Casefold and Lucene's ICU
        folding do) rather than lowercase it: ``"Straße"`` is ``"strasse"``, as ``"STRASSE"``
        is, where it stayed ``"straße"`` and never matched. False: read as before; what models
        saved before this setting existed do.
    latin_digraphs : bool, default=True
        With ``unicode_words``, read the Latin letters that are two letters in one character
        (Dutch ``"ĳ"``, the Croatian and Serbian ``"ǆ"``, ``"ǉ"``, ``"ǌ"``, ``"ǳ"``, ``"ŉ"``)
        as those two letters (their NFKC, as ICU's folding reads them): ``"ǆemal"`` and
        ``"džemal"`` were two terms. False: read as before; what models saved before this
        setting existed do.
    lao_digraphs : bool, default=True
        With ``unicode_words``, read Lao's ``"ໜ"`` and ``"ໝ"`` as the two letters they join
        (``"ຫນ"``, ``"ຫມ"``; their NFKC, as ICU's folding reads them): ``"ໜ້າ"`` and ``"ຫນ້າ"``
        (face) shared only a tone mark's and a vowel's bigram. False: read as before; what
        models saved before this setting existed do.
    cyrillic_apostrophe : bool, default=True
        With ``unicode_words``, read ``'`` and ``’`` between two Cyrillic letters as the
        apostrophe Ukrainian and Belarusian write inside a word (ʼ U+02BC, a letter), so that
        ``"сім'я"`` (family) is one term with ``"сімʼя"``, where it gave ``"сім"`` (seven).
        False: read as before; what models saved before this setting existed do.
    fold_stop_words : bool, default=True
        With ``unicode_words``, read the stop words as the text's words are read (the foldings
        above: ``"إلى"`` is ``"الي"``, ``"είναι"`` ``"ειναι"``), so that a stop word written
        with an accent or a letter variant is dropped. False: read as before (such a stop word
        was kept); what models saved before this setting existed do.
    sara_ae : bool, default=True
        With ``unicode_words``, read Thai's ``"เเ"`` (two sara e, as keyboards let one type
        it) as sara ae ``"แ"``, and Lao's ``"ເເ"`` as ``"ແ"``: ``"เเม่"`` and ``"แม่"``
        (mother) shared no bigram. False: read as before; what models saved before this
        setting existed do.
    malayalam_chillu : bool, default=True
        With ``unicode_words``, read a Malayalam chillu written as its consonant, virama and
        zero-width joiner (``"ന്\u200d"``) as the atomic chillu (``"ൻ"``, U+0D7A-U+0D7F):
        ``"അവന്\u200d"`` (he) read ``"അവന്"`` and never matched ``"അവൻ"``. False: read as
        before; what models saved before this setting existed do.
    fold_enclosed : bool, default=True
        With ``unicode_words``, read the enclosed alphanumerics (``"⑩"``, ``"⒛"``, ``"Ⓐ"``,
        ``"🄰"``) as their NFKC (``"10"``, ``"20."``, ``"a"``; as ICU's folding reads them),
        each a word of its own: ``"⑩"`` gave no term and ``"①②"`` one that matched nothing.
        False: read as before; what models saved before this setting existed do.
    emoji_terms : bool, default=True
        With ``unicode_words``, read each emoji as a term (``"👍"``, ``"👍🏽"``, a flag's pair),
        as Lucene's standard tokenizer does; they gave none. False: read as before; what
        models saved before this setting existed do.
    emoji_sequences : bool, default=True
        With ``emoji_terms``, read an emoji sequence as one term, as ICU's tokenizer does: the
        zero-width joiners of ``"👩‍💻"`` kept (it read as ``"👩"`` and ``"💻"``), a subdivision
        flag's tags (``"🏴󠁧󠁢󠁳󠁣󠁴󠁿"``, read as ``"🏴"``), a keycap's ``#`` and ``*``. False: read as before.
    khanda_ta : bool, default=True
        With ``unicode_words``, read Bengali's ta, virama and zero-width joiner as khanda ta
        (``"ৎ"``): ``"উত্\u200dসব"`` read ``"উত্সব"`` and never matched ``"উৎসব"``. False: read
        as before.
    vietnamese_tones : bool, default=True
        With ``unicode_words``, read Vietnamese's ``"hòa"``, ``"khỏe"``, ``"thủy"`` (the tone on
        the first vowel) as ``"hoà"``, ``"khoẻ"``, ``"thuỷ"``. False: read as before.
    devanagari_visarga : bool, default=True
        With ``unicode_words``, read a colon between two Devanagari characters as the visarga
        (``"दु:ख"`` gave ``"दु"``, never ``"दुःख"``). False: read as before.
    jieba_search : bool, default=True
        With ``analyzer="jieba"``, jieba's search mode: the shorter words inside a long one too
        (北京大学: 北京, 大学, 北京大学), so that 北京 finds 北京大学. False: its longest words alone.
    mai_yamok, hangul_jamo, yiddish_ligatures, lunate_sigma, vietnamese_eth, devanagari_anusvara, \
    cyrillic_latin_i, armenian_marks, katakana_variants : bool, default=True
        With ``unicode_words``, the later foldings of :mod:`._script_folds` (docs/languages.md),
        each False to read as before: Thai's ``"ๆ"`` and Lao's ``"ໆ"`` (the word again) read as
        a space (``"ดีๆ"`` gave ``"ีๆ"``, never met ``"ดี"``); a run of compatibility jamo that is
        syllables alone read as them (``"ㅎㅏㄴㄱㅜㄱㅇㅓ"`` is ``"한국어"``; ``"ㅋㅋㅋ"`` stays);
        Yiddish's ``"װ"``, ``"ױ"``, ``"ײ"`` read as ``"וו"``, ``"וי"``, ``"יי"``; Greek's ``"ϲ"``, ``"Ϲ"`` as sigma;
        ``"Ð"``, ``"ð"`` as ``"Đ"``, ``"đ"`` in a word of letters only Vietnamese writes (``"Ðà"``);
        a Devanagari nasal and virama before a consonant of its class as the anusvara (``"हिन्दी"`` is ``"हिंदी"``);
        the Latin ``"i"``, ``"ï"`` of a Cyrillic word as Ukrainian's ``"і"``, ``"ї"`` (``"мiсто"`` is ``"місто"``);
        Armenian's ``"՛"``, ``"՜"``, ``"՞"`` inside a word left out (``"ինչպե՞ս"`` is ``"ինչպես"``);
        Katakana's ``"ヶ"``, ``"ヵ"`` as ``"ケ"``, ``"カ"`` and a dash after it as ``"ー"`` (``"コ－ヒ－"``).
    turkish_lowercase : bool, default=True
        With ``lowercase`` and Turkish's stop words or stems, ``"I"`` lowercased as ``"ı"`` and
        ``"İ"`` as ``"i"``, as Turkish writes them (:mod:`._turkish`): ``"IRMAK"`` is ``"ırmak"``,
        where it was ``"irmak"``. False: read as before; what models saved before this setting existed do.
    turkish_apostrophe : bool, default=True
        With Turkish's stop words or stems, the suffix after an apostrophe in a word left out
        (``"Ankara'nın"`` is ``"ankara"``, where ``"nın"`` was a term too). False: read as before.
    irish_lowercase : bool, default=True
        With ``lowercase`` and Irish's stop words or stems, the ``n`` or ``t`` before a capital
        vowel at a word's start left out (:mod:`._irish`): ``"nAthair"`` is ``"athair"``, where
        it was ``"nathair"``. False: read as before; what models saved before this setting existed do.
    tai_scripts : bool, default=True
        With ``unicode_words``, Tai Tham, New Tai Lue, Tai Le, Tai Viet and Ahom, written without
        spaces, cut into bigrams as Thai is (:mod:`._tai`); False: a run is one term, as before.
    cyrillic_stress : bool, default=True
        With ``unicode_words``, the stress mark written over a Cyrillic vowel (``"Москва\u0301"``)
        left out (:mod:`._script_folds`); False: the word with it is a term of its own, as before.
    syriac_points : bool, default=True
        With ``unicode_words``, Syriac's optional vowel points and dots left out, as Hebrew's are.

    Examples
    --------
    >>> from learnsim.text import Tokenizer
    >>> Tokenizer()("The cat sat on the mat, a cat!")
    ['the', 'cat', 'sat', 'on', 'the', 'mat', 'cat']
    >>> Tokenizer(stop_words=["the", "on"], ngram_range=(1, 2))("The cat sat on the mat")
    ['cat', 'sat', 'mat', 'cat sat', 'sat mat']
    >>> Tokenizer()("東京の天気")
    ['東京', '京の', 'の天', '天気']
    >>> Tokenizer()("ＩＰｈｏｎｅ 15の価格")        # the bigrams, then the words
    ['の価', '価格', 'iphone', '15']
    >>> Tokenizer(analyzer="words")("東京の天気")
    ['東京の天気']
    >>> Tokenizer()("लिखा गया पाठ"), Tokenizer(unicode_words=False)("लिखा गया पाठ")
    (['लिखा', 'गया', 'पाठ'], ['गय'])
    >>> Tokenizer()("co\u00adoperate na\u00efve"), Tokenizer(drop_ignorables=False)("co\u00adoperate")
    (['cooperate', 'naïve'], ['co', 'operate'])
    >>> Tokenizer()("ジョン・スミス"), Tokenizer(uax29_punctuation=False)("ジョン・スミス")
    (['ジョ', 'ョン', 'スミ', 'ミス'], ['ジョ', 'ョン', 'ン・', '・ス', 'スミ', 'ミス'])

    References
    ----------
    Apache Lucene, ``CJKBigramFilter`` and ``CJKWidthFilter`` (the bigrams and the width folding).
    Unicode Standard Annex #29, *Unicode Text Segmentation*, section 4 (word boundaries: rule WB4
    keeps a combining mark with the character before it).
    """

    # (a tokenizer pickled before a setting existed reads as it did)
    drop_ignorables = uax29_punctuation = fold_variants = fold_radicals = indic_zwnj = sara_am = ela_geminada = False
    fold_squares = casefold = latin_digraphs = lao_digraphs = cyrillic_apostrophe = fold_stop_words = sara_ae = False
    malayalam_chillu = fold_enclosed = emoji_terms = emoji_sequences = False
    khanda_ta = vietnamese_tones = devanagari_visarga = jieba_search = False
    mai_yamok = hangul_jamo = yiddish_ligatures = lunate_sigma = vietnamese_eth = devanagari_anusvara = cyrillic_latin_i = armenian_marks = katakana_variants = False
    turkish_lowercase = turkish_apostrophe = irish_lowercase = tai_scripts = cyrillic_stress = syriac_points = False

    def __init__(self, lowercase=True, token_pattern=DEFAULT_TOKEN_PATTERN, stop_words=None,
                 stem=None, ngram_range=(1, 1), analyzer="cjk", cjk_unigrams=False, unicode_words=True,
                 drop_ignorables=True, uax29_punctuation=True, fold_variants=True, fold_radicals=True,
                 indic_zwnj=True, sara_am=True, ela_geminada=True, fold_squares=True, casefold=True,
                 latin_digraphs=True, lao_digraphs=True, cyrillic_apostrophe=True, fold_stop_words=True,
                 sara_ae=True,
                 malayalam_chillu=True,
                 fold_enclosed=True,
                 emoji_terms=True, emoji_sequences=True, khanda_ta=True, vietnamese_tones=True, devanagari_visarga=True,
                 jieba_search=True, mai_yamok=True, hangul_jamo=True, yiddish_ligatures=True,
                 lunate_sigma=True, vietnamese_eth=True, devanagari_anusvara=True,
                 cyrillic_latin_i=True, armenian_marks=True, katakana_variants=True, turkish_lowercase=True,
                 turkish_apostrophe=True, irish_lowercase=True, tai_scripts=True, cyrillic_stress=True, syriac_points=True):
        self.lowercase = bool(lowercase)
        self.token_pattern = token_pattern
        self.stop_words = stop_words
        self.stem = stem
        self.ngram_range = _check_ngram_range(ngram_range)
        if analyzer not in ANALYZERS:
            raise ValueError(f"analyzer must be one of {', '.join(map(repr, ANALYZERS))}; got {analyzer!r}")
        self.analyzer = analyzer
        self.cjk_unigrams = bool(cjk_unigrams)
        self.unicode_words = bool(unicode_words)
        self.drop_ignorables = bool(drop_ignorables)
        self.uax29_punctuation = bool(uax29_punctuation)
        self.fold_variants = bool(fold_variants)
        self.fold_radicals = bool(fold_radicals)
        self.indic_zwnj = bool(indic_zwnj)
        self.sara_am = bool(sara_am)
        self.ela_geminada = bool(ela_geminada)
        self.fold_squares = bool(fold_squares)
        self.casefold = bool(casefold)
        self.latin_digraphs = bool(latin_digraphs)
        self.lao_digraphs = bool(lao_digraphs)
        self.cyrillic_apostrophe = bool(cyrillic_apostrophe)
        self.fold_stop_words = bool(fold_stop_words)
        self.sara_ae = bool(sara_ae)
        self.malayalam_chillu = bool(malayalam_chillu)
        self.fold_enclosed = bool(fold_enclosed)
        self.emoji_terms = bool(emoji_terms)
        self.emoji_sequences = bool(emoji_sequences)
        self.khanda_ta, self.vietnamese_tones, self.devanagari_visarga = map(bool, (khanda_ta, vietnamese_tones, devanagari_visarga))
        self.jieba_search = bool(jieba_search)
        self.mai_yamok, self.hangul_jamo, self.yiddish_ligatures = map(bool, (mai_yamok, hangul_jamo, yiddish_ligatures))
        self.lunate_sigma, self.vietnamese_eth, self.devanagari_anusvara = map(bool, (lunate_sigma, vietnamese_eth, devanagari_anusvara))
        self.cyrillic_latin_i, self.armenian_marks, self.katakana_variants = map(bool, (cyrillic_latin_i, armenian_marks, katakana_variants))
        self.turkish_lowercase, self.turkish_apostrophe = bool(turkish_lowercase), bool(turkish_apostrophe)
        self._turkish = _reads_turkish(stop_words, stem)
        self.irish_lowercase, self._irish = bool(irish_lowercase), _reads_irish(stop_words, stem)
        self.tai_scripts, self.cyrillic_stress, self.syriac_points = map(bool, (tai_scripts, cyrillic_stress, syriac_points))

        if not isinstance(token_pattern, str):
            raise TypeError(f"token_pattern must be a str regular expression; got {type(token_pattern).__name__}")
        try:
            self._regex = re.compile(token_pattern)
        except re.error as exc:
            raise ValueError(f"token_pattern {token_pattern!r} is not a valid regular expression: {exc}") from None
        if self._regex.groups > 1:
            raise ValueError(f"token_pattern {token_pattern!r} has {self._regex.groups} capturing groups; "
                             "at most one is allowed (use (?:...) for the others)")
        self._stop_set = self._resolve_stop_words(stop_words)
        if self._stop_set is not None and self.casefold and self.unicode_words and self.lowercase:
            # case folding reads "daß" as "dass": a stop word listed with ß is dropped as read
            self._stop_set = self._stop_set | {w.casefold() for w in self._stop_set}
        if self._stop_set is not None and self.fold_stop_words and self.unicode_words:
            # a stop word as the words of a text are read (folded, vowel points left out)
            self._stop_set = self._stop_set | {_strip_points(_unicode_fold(
                self._prepare(w), self.drop_ignorables, self.uax29_punctuation, self.fold_variants,
                self.lowercase, self.fold_radicals, self.indic_zwnj, self._later_folds())) for w in self._stop_set
                if not w.isascii()}

        self._stemmer = load_stemmer(stem)
        self._stem_cache = {}
        # where the words end: runs of the spaceless scripts (for a morphological analyser, those
        # of its own scripts; the others are then cut into bigrams)
        self._segment = None if analyzer in ("cjk", "words") else _segmenter(analyzer, self.jieba_search)
        if not self.unicode_words:
            self._spaceless_run, self._spaceless_split = _SPACELESS_RUN, _SPACELESS_SPLIT
        elif self.uax29_punctuation:
            self._spaceless_run, self._spaceless_split = ((_SPACELESS_RUN_PT, _SPACELESS_SPLIT_PT) if self.tai_scripts
                                                          else (_SPACELESS_RUN_P, _SPACELESS_SPLIT_P))
        else:
            self._spaceless_run, self._spaceless_split = ((_SPACELESS_RUN_UT, _SPACELESS_SPLIT_UT) if self.tai_scripts
                                                          else (_SPACELESS_RUN_U, _SPACELESS_SPLIT_U))
        self._runs = _ANALYZER_RUNS.get(analyzer, self._spaceless_run)
        self._more = self._later_folds()

    def _later_folds(self):
        """The names of the later foldings this tokenizer reads with (:mod:`._folds`)."""
        return tuple(name for name in _FOLDS if getattr(self, name))

    # pickle, joblib and deepcopy: PyStemmer's Stemmer (and a morphological analyser) is a C object
    # that does not pickle, so every model with stem='porter' (a pairs fit's, by default) failed
    # in pickle.dumps with "self.cobj cannot be converted to a Python object for pickling"; both
    # are rebuilt from stem and analyzer, as __init__ builds them, and the stems' cache anew
    def __getstate__(self):
        state = dict(self.__dict__)
        del state["_stemmer"], state["_segment"]
        state["_stem_cache"] = {}
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._stemmer = load_stemmer(self.stem)
        self._segment = None if self.analyzer in ("cjk", "words") else _segmenter(self.analyzer, self.jieba_search)
        self._more = self._later_folds()      # (one pickled before a folding existed: without it)
        self._turkish = _reads_turkish(self.stop_words, self.stem)
        self._irish = _reads_irish(self.stop_words, self.stem)

    def get_params(self):
        """The settings, as keywords of ``Tokenizer`` (what a model records of its analysis)."""
        return {"lowercase": self.lowercase, "token_pattern": self.token_pattern, "stop_words": self.stop_words,
                "stem": self.stem, "ngram_range": self.ngram_range, "analyzer": self.analyzer,
                "cjk_unigrams": self.cjk_unigrams, "unicode_words": self.unicode_words,
                "drop_ignorables": self.drop_ignorables, "uax29_punctuation": self.uax29_punctuation,
                "fold_variants": self.fold_variants, "fold_radicals": self.fold_radicals,
                "indic_zwnj": self.indic_zwnj, **{name: getattr(self, name) for name in LATER_READINGS[5:]}}

    @staticmethod
    def _resolve_stop_words(stop_words):
        if stop_words is None:
            return None
        if isinstance(stop_words, str):
            return stop_list(stop_words)        # a language's list (._languages), or its ValueError
        try:
            words = list(stop_words)
        except TypeError:
            raise TypeError(f"stop_words must be None, 'english' or an iterable of str; "
                            f"got {type(stop_words).__name__}") from None
        for w in words:
            if not isinstance(w, str):
                raise TypeError(f"stop_words must contain str only; found {type(w).__name__} {w!r}")
        return frozenset(w.lower() for w in words)

    def __repr__(self):
        return (f"Tokenizer(lowercase={self.lowercase}, token_pattern={self.token_pattern!r}, "
                f"stop_words={self.stop_words!r}, stem={self.stem!r}, ngram_range={self.ngram_range}, "
                f"analyzer={self.analyzer!r}, cjk_unigrams={self.cjk_unigrams}, unicode_words={self.unicode_words}, "
                f"drop_ignorables={self.drop_ignorables}, uax29_punctuation={self.uax29_punctuation}, "
                f"fold_variants={self.fold_variants}, fold_radicals={self.fold_radicals}, indic_zwnj={self.indic_zwnj}, "
                + ", ".join(f"{name}={getattr(self, name)}" for name in LATER_READINGS[5:]) + ")")

    def _text_regex(self, text):
        """The word pattern of ``text``, a text that is not ASCII: with ``unicode_words`` and the
        default token pattern, the one that keeps combining marks in their words (on ASCII text
        the two find the same words), and with ``uax29_punctuation`` and a character of
        ``_MID_WORD`` in the text, the one that also keeps those inside words (looked for first:
        that pattern took 1.4x the time on Hebrew text)."""
        if self.unicode_words and self.token_pattern == DEFAULT_TOKEN_PATTERN:
            mid = self.uax29_punctuation and ("\u00b7" in text or "\u05f4" in text or "\u05f3" in text)
            return _emoji_words(text, _unicode_word_regex(mid), self.emoji_sequences) if self.emoji_terms \
                else _unicode_word_regex(mid)
        return self._regex

    def _stem_tokens(self, tokens):
        # (a cache of bounded size; a word of no language's length is its own stem: ._stems)
        return _stem_words(self._stemmer, self._stem_cache, tokens)

    def _words(self, text, at, out):
        """The words of ``text`` (a part without spaceless runs, at offset ``at``) appended to
        ``out`` as (start, end, token), stop words left out, before stemming."""
        regex = self._text_regex(text)
        group = 1 if regex.groups == 1 else 0
        stop = self._stop_set
        for m in regex.finditer(text):
            token = m.group(group)
            if stop is not None and token.lower() in stop:
                continue
            out.append((at + m.start(group), at + m.end(group), token))

    def _pieces(self, doc):
        """(start, end, term, is_word) of the lowercased, width-folded ``doc``, in order."""
        pieces, words = [], []
        self._cut(doc, 0, self._runs, pieces, words)
        if self._stemmer is not None and words:
            stems = self._stem_tokens([pieces[i][2] for i in words])
            for i, stem in zip(words, stems):
                a, b, _ = pieces[i]
                pieces[i] = (a, b, stem)
        return pieces

    def _cut(self, text, at, runs, pieces, words):
        """Append the pieces of ``text`` (at offset ``at``): words between ``runs``, each run
        segmented (a morphological analyser) or cut into bigrams."""
        last = 0
        for m in runs.finditer(text):
            if m.start() > last:
                self._between(text[last:m.start()], at + last, runs, pieces, words)
            run, start = m.group(), at + m.start()
            if self._segment is not None and runs is not self._spaceless_run:
                for cut in range(0, len(run), _MAX_ANALYSED_RUN):
                    pieces.extend((start + cut + a, start + cut + b, term.lower() if self.lowercase else term)
                                  for a, b, term in self._segment(run[cut:cut + _MAX_ANALYSED_RUN])
                                  if not term.isspace() and _has_word(term))
            elif len(run) == 1:
                pieces.append((start, start + 1, run))
            else:
                if self.cjk_unigrams:
                    pieces.extend((start + i, start + i + 1, c) for i, c in enumerate(run))
                pieces.extend((start + i, start + i + 2, run[i:i + 2]) for i in range(len(run) - 1))
            last = m.end()
        if last < len(text):
            self._between(text[last:], at + last, runs, pieces, words)

    def _between(self, text, at, runs, pieces, words):
        if runs is not self._spaceless_run:     # other spaceless scripts beside an analyser's: bigrams
            self._cut(text, at, self._spaceless_run, pieces, words)
            return
        n = len(pieces)
        found = []
        self._words(text, at, found)
        pieces.extend(found)
        words.extend(range(n, n + len(found)))

    def _cjk_terms(self, doc):
        """The terms of :meth:`_pieces` for the bigram analyzer, without their places: the path
        every text of a fit and a search takes, kept lean. Without word n-grams the order of the
        terms does not count: the bigrams of every run, then the words of the text between the
        runs found in one pass."""
        parts = self._spaceless_split.split(doc)
        if self.ngram_range[1] == 1:
            out = []
            unigrams = self.cjk_unigrams
            for run in parts[1::2]:
                if len(run) == 1:
                    out.append(run)
                    continue
                if unigrams:
                    out.extend(run)
                out.extend(map(_add, run[:-1], run[1:]))
            between = " ".join(parts[0::2]) if len(parts) > 1 else doc
            if self.unicode_words:
                between = _strip_points(between)
            words = self._text_regex(between).findall(between)
            if words:
                out += self._cjk_kept(words)
            return out
        out = []
        stop, stem, unigrams = self._stop_set, self._stemmer is not None, self.cjk_unigrams
        for i, part in enumerate(parts):
            if i & 1:                   # a run: its bigrams (a lone character itself)
                if len(part) == 1:
                    out.append(part)
                    continue
                if unigrams:
                    out.extend(part)
                out.extend(map(_add, part[:-1], part[1:]))
            elif part:
                if self.unicode_words:
                    part = _strip_points(part)
                words = self._text_regex(part).findall(part)
                if words:
                    if stop is not None:
                        words = [w for w in words if w.lower() not in stop]
                    if stem and words:
                        words = self._stem_tokens(words)
                    out.extend(words)
        return out

    def _prepare(self, doc):
        if not isinstance(doc, str):
            raise TypeError(f"Tokenizer expects a str document; got {type(doc).__name__}")
        if not self.lowercase:
            return doc
        if self.turkish_lowercase and self._turkish:
            doc = _turkish_lower(doc)       # (one character for one: I is ı, İ is i)
        if self.irish_lowercase and self._irish:
            doc = _irish_lower(doc)         # (one character for one: nAthair is " Athair")
        # Unicode's full case folding (casefold), where lowercasing left ß, so that "Straße" and
        # "STRASSE" (whose lower case is "strasse") were two terms; on ASCII the two are one
        if self.casefold and self.unicode_words and not doc.isascii():
            return _lowered(doc, casefold=True)     # a long text a piece at a time (._long_text)
        return _lowered(doc)

    def spans(self, doc):
        """Where each term of ``doc`` stands: a list of ``(start, end, term)``, ``doc[start:end]``
        being the text that became the unigram ``term`` (a word lower-cased and stemmed as in
        :meth:`__call__`, a character bigram, an analyser's word; stop words left out). Used to
        highlight the terms an explanation names.

        Reading a text can change its length: lowercasing (Turkish U+0130 is two characters in
        lower case), an accent written apart joined to its letter, a ligature opened, invisible
        characters left out. Then each character and the marks that follow it are read alone,
        every place of the text read kept, and the spans are given where the terms read so are
        the text's own (the reading of a whole text can depend on its neighbours: Greek final
        sigma, ASCII quotes between Hebrew letters); otherwise no spans rather than wrong ones.
        """
        if self.turkish_apostrophe and self._turkish:
            doc = _drop_suffixes(doc)       # (each character for one: a span is still the text's)
        if self.irish_lowercase and self._irish and self.lowercase:
            doc = _irish_lower(doc)         # (here too, where the text is read in parts)
        found = self._direct_spans(doc)
        if found is None:
            found = self._mapped_spans(doc)
        return [] if found is None else found

    def _direct_spans(self, doc):
        """:meth:`spans` where reading the text keeps its length; None where it does not."""
        lowered = self._prepare(doc)
        kept, changed = None, False
        if len(lowered) != len(doc):
            # case folding opened a letter into two (ß is ss): each keeps the place it came from
            if self.lowercase and self.casefold and self.unicode_words:
                kept = _casefold_places(doc)
            if kept is None or len(kept) != len(lowered):
                return None
        if self.unicode_words and not lowered.isascii():
            if self.drop_ignorables:
                if "\u200d" in lowered and _fold_joined(lowered, self._more) != lowered:
                    return None         # a chillu in three characters read as one: read in parts
                dropped = _drop_ignorable(lowered, self.emoji_sequences)
                if len(dropped) != len(lowered):
                    # the invisible characters left out (a byte order mark before the text, a
                    # soft hyphen in a word): the places of the others, to give spans in ``doc``
                    kept = [i if kept is None else kept[i] for i in _kept_places(lowered, self.emoji_sequences)]
                    lowered = dropped
            if self.indic_zwnj and "\u200c" in lowered:
                joined = _drop_indic_zwnj(lowered)
                if len(joined) != len(lowered):
                    # the non-joiners inside Indic words left out: likewise
                    gone = _indic_zwnj_places(lowered)
                    places = kept if kept is not None else range(len(lowered))
                    kept = [places[i] for i in range(len(lowered)) if i not in gone]
                    lowered = joined
            before = lowered

            def fold(text):
                return _strip_points(_unicode_fold(text, hebrew_quotes=self.uax29_punctuation,
                                                   fold_variants=self.fold_variants, lower=self.lowercase,
                                                   fold_radicals=self.fold_radicals, more=self._more))
            lowered = fold(lowered)
            if len(lowered) != len(before):     # an accent joined to its letter: no place to give
                return None
            changed = lowered != before
        found = self._spans_of(lowered, len(lowered) if kept is not None else len(doc))
        if found is None:
            return None
        # as long, but changed: an accent joined (-1) and a ligature opened (+1, ﬁ) keep the length
        # and move every place between them. A span holds where its text folds to what stands
        # there (or read with the character before it: a dash after Katakana is the long mark);
        # one that does not: read another way
        if changed and any(fold(before[a:b]) != lowered[a:b] and (a == 0 or fold(before[a - 1:b])[1:] != lowered[a:b])
                           for a, b, _ in found):
            return None
        if kept is not None:
            return [(kept[a], kept[b - 1] + 1, term) for a, b, term in found]
        return found

    def _mapped_spans(self, doc):
        """:meth:`spans` of a text whose reading changes its length: each character with the
        combining marks after it read alone, the places of what it became kept; None where the
        terms so read are not the text's own (:meth:`_unigrams`), or the text, as written or as
        read, is longer than ``_spans.MAX_MAPPED`` (its cost: docs/languages.md,
        benchmarks/bench_spans.py)."""
        return _mapped(self, doc, _indic_zwnj_places)

    def _read_alone(self, doc, i, j):
        """``doc[i:j]`` (a character and what joins it) read alone, as :meth:`_mapped_spans` reads
        a text in parts."""
        part = self._prepare(doc[i:j])
        if self.cyrillic_apostrophe and self.unicode_words and part in "'\u2019" and _fold_more(
                doc[max(i - 1, 0):j + 1], ("cyrillic_apostrophe",)) != doc[max(i - 1, 0):j + 1]:
            part = "\u02bc"        # an apostrophe inside a Cyrillic word: read in its context
        elif self.unicode_words and not part.isascii():
            part = _strip_points(_unicode_fold(part, self.drop_ignorables, self.uax29_punctuation,
                                               self.fold_variants, self.lowercase, self.fold_radicals,
                                               self.indic_zwnj, self._more))
        if self.analyzer != "words":
            part = _fold_width(part)
        return part

    def _spans_of(self, lowered, n):
        """:meth:`spans` of a text already lowered and folded (``n``: its length before width
        folding, which must keep it; None where it does not)."""
        if self.analyzer == "words" or lowered.isascii():
            out = []
            self._words(lowered, 0, out)
            if self._stemmer is not None and out:
                stems = self._stem_tokens([t for _, _, t in out])
                out = [(a, b, stem) for (a, b, _), stem in zip(out, stems)]
            return out
        folded = _fold_width(lowered)
        if len(folded) != n:       # half-width voiced kana composed: no place to give
            return None
        found = self._pieces(folded)
        if folded != lowered and ("\u3099" in folded or "\u309a" in folded):
            # the NFC that joins a voiced sound mark to its kana also puts a run of marks in
            # canonical order (U+3099 before a cedilla): as long, with places moved. A span holds
            # where its text folds to what stands there
            if any(_fold_width(lowered[a:b]) != folded[a:b] for a, b, _ in found):
                return None
        return found

    def __call__(self, doc):
        tokens = self._unigrams(doc)
        min_n, max_n = self.ngram_range
        if max_n == 1:
            return tokens
        terms = list(tokens) if min_n == 1 else []
        if self.jieba_search and self.analyzer == "jieba":  # n-grams of its longest words, not of those inside
            tokens = _jieba_longest(self, _segmenter("jieba"))._unigrams(doc)
        for n in range(max(min_n, 2), max_n + 1):
            terms.extend(" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
        return terms

    def _unigrams(self, doc):
        """The terms of ``doc`` before n-grams are joined (:meth:`__call__`)."""
        doc, regex = self._word_source(doc)
        if regex is not None:
            return self._kept_words(regex.findall(doc))
        if self.analyzer == "cjk":
            return self._cjk_terms(_fold_width(doc))
        folded = _fold_width(doc)
        return [term for _, _, term in self._pieces(_strip_points(folded) if self.unicode_words else folded)]

    def _word_source(self, doc):
        """(text, regex) where ``doc``'s terms are the regex's findall over the text, then
        :meth:`_kept_words` (learnsim.text._term_stream reads a long text so, a batch at a time);
        (text, None) where the cjk analyser or a segmenter reads the text instead."""
        if self.turkish_apostrophe and self._turkish:
            doc = _drop_suffixes(doc)
        doc = self._prepare(doc)
        ascii_text = doc.isascii()
        if self.unicode_words and not ascii_text:
            doc = _unicode_fold(doc, self.drop_ignorables, self.uax29_punctuation, self.fold_variants, self.lowercase,
                                self.fold_radicals, self.indic_zwnj, self._more)
        if ascii_text:
            return doc, self._regex
        if self.analyzer != "words":
            return doc, None
        if self.unicode_words:
            doc = _strip_points(doc)
        return doc, self._text_regex(doc)

    def _cjk_kept(self, words):
        """The words kept of a text the bigram analyser reads (stop words compared lowercased)."""
        if self._stop_set is not None:
            words = [w for w in words if w.lower() not in self._stop_set]
        return self._stem_tokens(words) if self._stemmer is not None and words else words

    def _kept_words(self, tokens):
        """The words found, stop words left out and stemmed."""
        if self._stop_set is not None:
            stop = self._stop_set
            if self.lowercase:
                tokens = [t for t in tokens if t not in stop]
            else:
                tokens = [t for t in tokens if t.lower() not in stop]
        if self._stemmer is not None and tokens:
            tokens = self._stem_tokens(tokens)
        return tokens


_WORD_CHAR = re.compile(r"\w")


def _has_word(term):
    """An analyser's token that is more than punctuation or symbols."""
    return _WORD_CHAR.search(term) is not None


#: Most terms a lone character of a query is read as (:class:`LoneCharacters`): a common
#: character (の, 的) is in thousands of bigrams, and a query of them all would read most of the
#: collection's posting lists.
MAX_LONE_TERMS = 1000


# the most code points one character of the spaceless scripts is written with (a Hangul syllable
# as three jamo in NFD; a kana with its voiced mark, written apart or half-width, as two)
_MAX_CHARACTER_CODE_POINTS = 3


class LoneCharacters:
    """A query's lone character of a script written without spaces, read as the terms that hold it.

    With character bigrams (``analyzer="cjk"``, as Lucene's CJK analyser) a run of two or more
    characters becomes bigrams, and a character standing alone stays itself. So a one-character
    query (猫, 桜, 물: cat, cherry blossom, water) was a term no document has, wherever the character
    stood inside a longer run in the documents (子猫が, 桜の), and found nothing. This reads such a
    character, when the vocabulary does not hold it, as the vocabulary's terms of those scripts
    that hold it (子猫, 猫が, ...; at most ``limit`` for the whole query, in vocabulary order), in
    its place: a search then finds the documents where it stands, scored by those terms. In a query
    whose runs of those scripts are all lone characters (猫, 猫 犬), a character the vocabulary holds
    keeps itself and gains those terms: that one document wrote 猫 alone (ペット：猫、犬) made the
    query find that document and none of the others. Longer runs, a known character beside them
    and text without those scripts are left as they are.

    Parameters
    ----------
    tokenizer : Tokenizer
        How the model reads text.
    vocabularies : list of dict or set
        The terms the model knows (a vocabulary and, for a model that mixes two, the other's).
    limit : int, default=MAX_LONE_TERMS
        Most terms added to a query (the first lone characters' first).

    Examples
    --------
    >>> expand = LoneCharacters(Tokenizer(), [{"子猫": 0, "猫が": 1, "犬が": 2, "好き": 3}])
    >>> expand("猫")
    '子猫 猫が'
    >>> expand("猫が好き"), expand("cat")
    ('猫が好き', 'cat')
    >>> LoneCharacters(Tokenizer(), [{"猫": 0, "子猫": 1, "猫が": 2}])("猫")    # known: kept, and widened
    '猫 子猫 猫が'

    References
    ----------
    Apache Lucene, ``CJKBigramFilter`` (``outputUnigrams``); Elasticsearch's ``cjk_bigram`` token
    filter, whose ``output_unigrams`` indexes every character for the same need.
    """

    def __init__(self, tokenizer, vocabularies, limit=MAX_LONE_TERMS):
        self.tokenizer, self.vocabularies, self.limit = tokenizer, list(vocabularies), int(limit)
        self._holding = None

    def _known(self, term):
        return any(term in v for v in self.vocabularies)

    def _terms_holding(self):
        """{character: [terms of the spaceless scripts holding it]}, built at the first lone
        character (one pass over the vocabularies)."""
        if self._holding is None:
            run, holding = self.tokenizer._spaceless_run, {}
            for vocabulary in self.vocabularies:
                for term in vocabulary:
                    if len(term) >= 2 and not term.isascii() and run.fullmatch(term):
                        for c in set(term):
                            terms = holding.setdefault(c, {})     # (a term both vocabularies hold: once)
                            if len(terms) < self.limit:
                                terms[term] = None
            self._holding = {c: list(terms) for c, terms in holding.items()}
        return self._holding

    def __call__(self, text):
        """``text`` with each unknown lone character replaced by the terms holding it (so that
        reading the result again changes nothing more)."""
        if text.isascii() or self.tokenizer.analyzer == "words":
            return text
        added, holding, widen = 0, None, None

        def lone_runs_only():
            # a query of lone characters alone: a known one is widened too (kept itself); beside
            # longer runs (a sentence, a document as a query) it is read as it is (read again,
            # the terms it gained are longer runs: nothing more is added). Looked at once, at the
            # first known lone character: most queries never meet one
            runs = self.tokenizer._spaceless_run.findall(source)
            return all(len(r) <= _MAX_CHARACTER_CODE_POINTS and all(len(t) == 1 for t in self.tokenizer(r))
                       for r in runs)

        def replace(m):
            nonlocal added, holding, widen
            c = m.group()
            # as the tokenizer folds it (ｶ is カ): one character may be written as up to three
            # code points (물 as the jamo 물 in NFD, が as か and a voiced mark, ｶﾞ as ガ)
            term = self.tokenizer(c) if len(c) <= _MAX_CHARACTER_CODE_POINTS else ()
            if len(term) != 1 or len(term[0]) != 1 or added >= self.limit:
                return c
            known = self._known(term[0])
            if known:
                if widen is None:
                    widen = lone_runs_only()
                if not widen:
                    return c
            if holding is None:
                holding = self._terms_holding()
            # at most `limit` in all: a query of a thousand lone characters is not a million terms
            found = holding.get(term[0], ())[:self.limit - added]
            added += len(found)
            return f" {' '.join(([term[0]] if known else []) + found)} " if found else c

        # a Kangxi radical the tokenizer reads as its ideograph (⼈ as 人, fold_radicals) is that
        # lone character too: it stands outside the runs' class, and a query of ⼈ found nothing
        # where one of 人 found the documents with 人口
        tok = self.tokenizer
        source = _fold_radicals(text) if tok.fold_radicals and tok.unicode_words else text
        read = tok._spaceless_run.sub(replace, source)
        return read.strip() if added else text

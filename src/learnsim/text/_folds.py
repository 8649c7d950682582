"""Foldings of :class:`learnsim.text.Tokenizer` that came after models were saved, each a later
reading (``LATER_READINGS``) of its own, run on a text that is not ASCII after its NFC (and the
reading of compatibility characters that ``fold_variants`` keeps, at the end): a word
written two ways that Unicode's normalisation for search (ICU's NFKC_Casefold, Elasticsearch's
``icu_folding``) reads as one, and that gave two terms here. The standard library only, as the
tokenizer."""
from __future__ import annotations

import re
from unicodedata import is_normalized as _is_normalized, normalize as _normalize

from .._utils.inputs import EMOJI_CLASS, FLAG_CLASS
from ._script_folds import CYRILLIC_STRESS, SYRIAC_POINTS, fold_cyrillic_stress, fold_syriac_points
from ._script_folds import ARMENIAN_MARKS, ETH, JAMO, KATAKANA_VARIANTS, LUNATE_SIGMA, REPEAT_MARKS, YIDDISH_LIGATURES, fold_armenian_marks, fold_cyrillic_latin_i, \
    fold_devanagari_anusvara, latin_i_near, fold_hangul_jamo, fold_katakana_variants, fold_lunate_sigma, fold_mai_yamok, fold_vietnamese_eth, fold_yiddish_ligatures

# Thai's and Lao's sara am (ำ U+0E33, ຳ U+0EB3) is written by some keyboards and fonts as the
# nikhahit (niggahita) and sara aa (ํ + า, ໍ + າ), perhaps with a tone mark between them or
# before them: NFKC opens ำ into those two (a compatibility decomposition), and NFC leaves both
# as they are. น้ำ (water) and น้ํา shared only their first bigram (น้ + ้ำ against น้ + ้ํ + ํา). Read
# as the one character most text writes (a tone mark before it), which keeps the bigram of a
# syllable two characters long.
_SARA_AM = re.compile("([\u0E48-\u0E4B]?)\u0E4D([\u0E48-\u0E4B]?)\u0E32|([\u0EC8-\u0ECB]?)\u0ECD([\u0EC8-\u0ECB]?)\u0EB2")


def _sara_am(m):
    if m.group(3) is None and m.group(4) is None:
        return m.group(1) + m.group(2) + "\u0E33"
    return m.group(3) + m.group(4) + "\u0EB3"


def fold_sara_am(text, lower=True):
    """``text`` with Thai's ``ํา`` and Lao's ``ໍາ`` (a tone mark before, between or none) as
    sara am, the tone mark first."""
    if "\u0E4D" not in text and "\u0ECD" not in text:
        return text
    return _SARA_AM.sub(_sara_am, text)


#: the marks a character of a text read in parts takes with it (Tokenizer's mapped spans): the
#: sara aa after a nikhahit (and a tone mark) it is read as sara am with
SARA_AA = "\u0E32\u0EB2"
NIKHAHIT = "\u0E4D\u0ECD"


# Catalan's ela geminada written with the one character Unicode has for l· (ŀ U+0140, Ŀ U+013F,
# from Latin-1's successors' code pages): "coŀlecció" gave the term coŀlecció, and "col·lecció"
# (l, the middle dot, l; most text) col·lecció, two terms for one word. NFKC (and ICU's folding)
# opens ŀ into l and the middle dot, which Unicode's word rules keep inside the word: read so.
# "col.lecció" and "col•lecció" stay two words, col and lecció, as the period and the bullet are
# elsewhere (Lucene's standard tokenizer keeps "col.lecció" whole, one term that matches neither).
_ELA = {0x0140: "l\u00b7", 0x013F: "L\u00b7"}


def fold_ela(text, lower=True):
    """``text`` with ŀ and Ŀ as l and L followed by the middle dot (their NFKC)."""
    if "\u0140" not in text and "\u013f" not in text:
        return text
    return text.translate(_ELA)


# The CJK compatibility squares and enclosed CJK letters (U+3200-U+33FF): units, era names and
# katakana words set in one square (㎜ ㎏ ㍻ ㌔), the circled and parenthesised ideographs (㈱ ㊤)
# and dates (㋀). Japanese text, a PDF's above all, writes them in place of what they stand for,
# and they were read as symbols, no term: "10㎏の米" lost 10kg, "㍻" never matched "平成". Read
# as their NFKC (mm, kg, 平成, キロ), as ICU's normaliser for search reads them.
_SQUARES = re.compile("[\u3200-\u33FF]")
_SQUARE_READ = {False: {}, True: {}}        # a square -> its reading, by ``lower`` (at most 512)


def fold_squares(text, lower=True):
    """``text`` with the characters of U+3200-U+33FF as their NFKC (lowercased where
    ``lower``: the text was)."""
    if _SQUARES.search(text) is None:
        return text
    kept = _SQUARE_READ[lower]

    def read(m):
        c = m.group()
        out = kept.get(c)
        if out is None:
            out = _normalize("NFKC", c)
            out = kept[c] = out.lower() if lower else out
        return out
    return _SQUARES.sub(read, text)


# Latin letters that Unicode has as one character for two: Dutch's ĳ (U+0132, U+0133), the
# digraphs of Croatian and Serbian Latin (Ǆ ǅ ǆ, Ǉ ǈ ǉ, Ǌ ǋ ǌ; text transliterated from Cyrillic
# letter for letter writes them), Ǳ ǲ ǳ and ŉ. Read as one letter, "ǆemal" and "džemal", "ĳs"
# and "ijs" were two terms for one word; their NFKC (ICU's folding) is the two letters.
_DIGRAPHS = "\u0132\u0133\u0149\u01c4-\u01cc\u01f1-\u01f3"
_DIGRAPH = re.compile(f"[{_DIGRAPHS}]")
_DIGRAPH_READ = {lower: {cp: (_normalize("NFKC", chr(cp)).lower() if lower else _normalize("NFKC", chr(cp)))
                         for cp in [0x0132, 0x0133, 0x0149, *range(0x01C4, 0x01CD), *range(0x01F1, 0x01F4)]}
                 for lower in (False, True)}


def fold_digraphs(text, lower=True):
    """``text`` with the Latin digraph letters of ``_DIGRAPHS`` as their two letters (NFKC;
    lowercased where ``lower``: the text was)."""
    if _DIGRAPH.search(text) is None:
        return text
    return text.translate(_DIGRAPH_READ[lower])


# Lao's ໜ (U+0EDC) and ໝ (U+0EDD), the ligatures of ho with no and mo, which Lao text writes as
# often as the two letters ຫນ, ຫມ: ໜ້າ (face) and ຫນ້າ shared only the bigram of a tone mark and a
# vowel, ້າ, which a thousand other words hold. Read as the two
# letters, their NFKC (ICU's folding too).
_LAO_DIGRAPHS = {0x0EDC: "\u0eab\u0e99", 0x0EDD: "\u0eab\u0ea1"}


def fold_lao_digraphs(text, lower=True):
    """``text`` with Lao's ໜ and ໝ as ຫນ and ຫມ."""
    if "\u0edc" not in text and "\u0edd" not in text:
        return text
    return text.translate(_LAO_DIGRAPHS)


# The apostrophe inside a Ukrainian or Belarusian word (сім'я, family; п'ять, five; м'ясо), which
# the orthography writes as the modifier letter apostrophe (ʼ U+02BC, a letter: the word stays
# whole) and most text types as ' or ’ (U+2019): read as a break, "сім'я" gave the term сім
# (seven), its я alone and lost, and never matched сімʼя. Between two Cyrillic letters both are
# read as ʼ, one character for one, as Lucene's Ukrainian analyser maps them to one apostrophe.
_CYRILLIC_APOSTROPHE = re.compile("(?<=[\u0400-\u04ff])['\u2019](?=[\u0400-\u04ff])")


def fold_cyrillic_apostrophe(text, lower=True):
    """``text`` with ' and ’ between two Cyrillic letters as the modifier letter apostrophe."""
    if "'" not in text and "\u2019" not in text:
        return text
    return _CYRILLIC_APOSTROPHE.sub("\u02bc", text)


# Thai's sara ae (แ U+0E41) typed as two sara e (เเ), as Thai keyboards and fonts let one type it
# and look the same, and Lao's (ແ U+0EC1, ເເ): แม่ (mother) typed เเม่ gave the bigrams เเ เม ม่
# and shared none with แม่ (แม ม่). No word writes two sara e in a row (a leading vowel comes
# before its consonant, one to a syllable), so the pair is read as sara ae, as Thai search
# engines and PyThaiNLP's normalise do. (Not NFKC's: Unicode has no decomposition for it.)
_SARA_AE = {"\u0e40\u0e40": "\u0e41", "\u0ec0\u0ec0": "\u0ec1"}


def fold_sara_ae(text, lower=True):
    """``text`` with Thai's ``เเ`` and Lao's ``ເເ`` as sara ae (``แ``, ``ແ``)."""
    for pair, one in _SARA_AE.items():
        if pair in text:
            text = text.replace(pair, one)
    return text


#: a sara e that, after another, is read with it as sara ae (Tokenizer's mapped spans)
SARA_E = "\u0e40\u0ec0"


# Malayalam's chillus (the consonants ണ ന ര ല ള ക with no vowel, ൺ ൻ ർ ൽ ൾ ൿ U+0D7A-U+0D7F since
# Unicode 5.1) written as before, the consonant, the virama and a zero-width joiner, as older text
# and some keyboards still write them: the joiner, invisible, was left out, and അവന്‍ (he) read
# as അവന്, a word that never matched അവൻ. Read as the atomic chillu (Unicode's own table of the
# two spellings, which ICU's Malayalam transforms and Lucene's Indic normaliser follow), before
# the invisible characters are left out.
_CHILLU = re.compile("([\u0d23\u0d28\u0d30\u0d32\u0d33\u0d15])\u0d4d\u200d")
_ATOMIC_CHILLU = {"\u0d23": "\u0d7a", "\u0d28": "\u0d7b", "\u0d30": "\u0d7c", "\u0d32": "\u0d7d",
                  "\u0d33": "\u0d7e", "\u0d15": "\u0d7f"}


def fold_chillu(text, lower=True):
    """``text`` with Malayalam's consonant, virama and zero-width joiner as the atomic chillu."""
    if "\u0d4d\u200d" not in text:
        return text
    return _CHILLU.sub(lambda m: _ATOMIC_CHILLU[m.group(1)], text)


# Bengali's khanda ta (ৎ U+09CE, since Unicode 4.1) written as before, ta, the virama and a
# zero-width joiner (ত্‍), as older text and some keyboards still write it: the joiner, invisible,
# was left out, and উৎসব (festival) typed উত্‍সব read as উত্সব, a word that never matched. Read as
# the atomic letter, Unicode's own equivalence of the two spellings (Lucene's Indic normaliser
# maps them so), before the invisible characters are left out.
def fold_khanda_ta(text, lower=True):
    """``text`` with Bengali's ta, virama and zero-width joiner as khanda ta."""
    return text.replace("\u09a4\u09cd\u200d", "\u09ce") if "\u09cd\u200d" in text else text


def fold_joined(text, more):
    """``text`` with the letters written with a zero-width joiner that the foldings named in
    ``more`` read as one (a Malayalam chillu, Bengali's khanda ta): run before the joiners are
    left out."""
    if "\u200d" not in text:
        return text
    if "malayalam_chillu" in more:
        text = fold_chillu(text)
    return fold_khanda_ta(text) if "khanda_ta" in more else text


# Vietnamese's tone mark on the rising diphthongs oa, oe and uy ending a syllable, which text
# writes in two styles, both common: on the first vowel (hòa, khỏe, thủy: the older style, most
# keyboards' default) or on the second (hoà, khoẻ, thuỷ). Unicode's normalisation keeps them
# apart, and hòa bình (peace) never matched hoà bình, nor ủy ban (committee) uỷ ban. Read with
# the tone on the second vowel, where both styles put it once a consonant follows (hoàn, khuyến),
# as Vietnamese search engines read them. After qu the u is the consonant's (quý, one style) and
# is not read so; Portuguese's õe (põe) is left as it is. (Ending a syllable: no Latin letter or
# mark after it, so that a span of the word read alone reads the same.)
_VI_TONE = re.compile("(?<![qQ])(?:([òóỏọÒÓỎỌ])([aAeE])|([õÕ])([aA])|([ùúủũụÙÚỦŨỤ])([yY]))(?![A-Za-z\u00c0-\u024f\u1e00-\u1eff\u0300-\u036f])")
_VI_LOOK = re.compile("[òóỏõọùúủũụÒÓỎÕỌÙÚỦŨỤ][aAeEyY]")


def _vi_tone(m):
    first, second = [g for g in m.groups() if g is not None]
    base, tone = _normalize("NFD", first)[0], _normalize("NFD", first)[1:]
    return base + _normalize("NFC", second + tone)


def fold_vietnamese_tones(text, lower=True):
    """``text`` with the tone of Vietnamese's oa, oe and uy ending a syllable on the second
    vowel (``hòa`` is ``hoà``)."""
    if _VI_LOOK.search(text) is None:
        return text
    return _VI_TONE.sub(_vi_tone, text)


# Devanagari's visarga (ः U+0903) typed as a colon, as most Hindi and Marathi keyboards and text
# write it inside a word (दु:ख, sorrow; प्रात:काल, morning): the colon broke the word, and दु:ख
# gave the term दु alone (ख, one letter, no term), which never matched दुःख. Between two
# Devanagari characters a colon is read as the visarga it stands for, as the cyrillic_apostrophe
# reads an apostrophe inside a Cyrillic word; after a word (अत:, अतः, therefore; or a list's
# colon) it stays a colon, as the two cannot be told apart there.
_DEVANAGARI_COLON = re.compile("(?<=[\u0900-\u0963\u0966-\u097f]):(?=[\u0900-\u0963\u0966-\u097f])")


def fold_devanagari_visarga(text, lower=True):
    """``text`` with a colon between two Devanagari characters as the visarga."""
    if ":" not in text:
        return text
    return _DEVANAGARI_COLON.sub("\u0903", text)


# The enclosed alphanumerics (U+2460-U+24FF: ① ⑩ ⒛ ⒜ Ⓐ ⓐ; U+1F100-U+1F190: 🄁 🄐 🄰), which
# lists and Japanese text set in place of a number or a letter: they were read as symbols, ⑩ alone
# no term and ①② one term that matched nothing typed. Read as their NFKC (ICU's folding: ⑩ is
# 10, Ⓐ is a), each a word of its own (a space either side): ①② is the items 1 and 2, not twelve,
# and 第⑩回 reads as 第10回 does. The regional indicators of flags and the negative circled
# digits (➊ ⓫) have no NFKC and are not read so.
_ENCLOSED_CPS = [cp for cp in [*range(0x2460, 0x2500), *range(0x1F100, 0x1F191)]
                 if _normalize("NFKC", chr(cp)) != chr(cp)]
_ENCLOSED = "\u2460-\u24ff\U0001f100-\U0001f190"
_ENCLOSED_RE = re.compile(f"[{_ENCLOSED}]")
_ENCLOSED_READ = {lower: {cp: " " + (_normalize("NFKC", chr(cp)).lower() if lower else _normalize("NFKC", chr(cp))) + " "
                          for cp in _ENCLOSED_CPS} for lower in (False, True)}


def fold_enclosed(text, lower=True):
    """``text`` with the enclosed alphanumerics as their NFKC, a space either side (lowercased
    where ``lower``: the text was)."""
    if _ENCLOSED_RE.search(text) is None:
        return text
    return text.translate(_ENCLOSED_READ[lower])


# Emoji (the pictographs of U+1F300-U+1FAFF and the symbols most often shown as emoji, ☀-➿ ⌚ ⭐
# 〽), which no word pattern reads (they are symbols, not letters or digits): 👍 gave no term, a
# query of an emoji found nothing, and a review of 🔥🔥🔥 was an empty text. Elasticsearch's and
# Lucene's standard tokenizer (UAX #29) give each emoji a token: so here, one term each, a skin
# tone (U+1F3FB-U+1F3FF) kept with its emoji, a flag's two regional indicators one term. The
# symbols that text writes as text (© ® ™ ‼, the arrows) and the squared CJK words (🈁, which
# have an NFKC) are not read so; the zero-width joiner of a sequence (👩‍💻) is invisible and left
# out as the others are, so its emoji are terms each, in a query as in a document.
_EMOJI, _FLAG = EMOJI_CLASS, FLAG_CLASS       # shared with has_content (learnsim._utils.inputs)
# (a first look for a few ranges that hold them all: the look for the emoji's own class, 17
# ranges, took a Latin text's analysis 14 % longer; this one, 2-3 %)
_EMOJI_LOOK = re.compile("[\u231a-\u27bf\u2b1b-\u2b55\u3030\u303d\u3297\u3299\U0001f004-\U0001faff]")
_EMOJI_WORDS = {}


def emoji_words(text, words, sequences=False):
    """The word pattern ``words`` that also reads each emoji of ``text`` as a term (``words``
    itself where ``text`` holds none: a text of words alone is read at its own speed);
    ``sequences``: an emoji sequence (``_SEQUENCE``: joined by zero-width joiners, a subdivision
    flag's tags) and a keycap of ``#`` or ``*`` as one term."""
    if (_SEQUENCE_WORDS_LOOK if sequences else _EMOJI_LOOK).search(text) is None:
        return words
    both = _EMOJI_WORDS.get((words, sequences))
    if both is None:
        base = words.pattern[4:] if words.pattern.startswith("(?u)") else words.pattern
        one = f"[{_EMOJI}]\ufe0f?[\U0001f3fb-\U0001f3ff]?"
        if sequences:
            both = re.compile(f"(?u)[{_FLAG}]{{2}}|\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f|[#*]\ufe0f?\u20e3"
                              f"|{one}(?:\u200d{one})*|{base}")
        else:
            both = re.compile(f"(?u)[{_FLAG}]{{2}}|{one}|{base}")
        _EMOJI_WORDS[(words, sequences)] = both
    return both


# (and with sequences, a keycap's mark: #⃣ holds no emoji)
_SEQUENCE_WORDS_LOOK = re.compile(_EMOJI_LOOK.pattern[:-1] + "\u20e3]")


# Characters that are invisible and say nothing of a word (Unicode's Default_Ignorable_Code_Point,
# less the zero-width space and non-joiner, which mark a break): the soft hyphen (a place a word
# may be hyphenated, which text copied from a typeset page or a PDF keeps: "co<SHY>operate"), the
# combining grapheme joiner, the Arabic letter mark, Hangul fillers, Khmer's inherent vowels,
# Mongolian's variation selectors and vowel separator, the zero-width joiner (inside Indic
# conjuncts and Malayalam's chillu letters: "क्<ZWJ>ष" is क्ष), the left-to-right and right-to-left
# marks, embeddings, overrides and isolates, the word joiner and invisible operators, variation
# selectors, the zero-width no-break space (U+FEFF, also a byte order mark left inside a
# concatenated file) and tag characters. Unicode's word rules do not break a word at them (UAX
# #29, WB4) and ICU's normalisation for search (NFKC_Casefold) removes them; read as breaks, they
# cut a word in two ("co", "operate") that never matched the word written without them.
IGNORABLE_BMP = ("\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200D-\u200F\u202A-\u202E"
                 "\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0")
IGNORABLE = f"[{IGNORABLE_BMP}\U0001BCA0-\U0001BCA3\U0001D173-\U0001D17A\U000E0000-\U000E0FFF]+"
# (a first look for the Basic Multilingual Plane's or any character beyond it, then all of them
# removed: a search of the whole class took 4.5x the time of the first, its ranges beyond the
# plane slowing each character's test: 12 % of a long Japanese article's analysis)
IGNORABLE_RE = []


def _ignorable_res():
    if not IGNORABLE_RE:
        IGNORABLE_RE.extend((re.compile(f"[{IGNORABLE_BMP}\U00010000-\U0010FFFF]"), re.compile(IGNORABLE)))
    return IGNORABLE_RE


def drop_ignorable(text, sequences=False):
    """``text`` without the characters of ``IGNORABLE`` (``sequences``: but the joiners and tags
    of an emoji sequence, ``_SEQUENCE``)."""
    maybe, every = _ignorable_res()
    if maybe.search(text) is None:
        return text
    if sequences and _SEQUENCE_LOOK.search(text) is not None:
        parts, at = [], 0
        for m in _SEQUENCE.finditer(text):
            parts.extend((every.sub("", text[at:m.start()]), m.group()))
            at = m.end()
        parts.append(every.sub("", text[at:]))
        return "".join(parts)
    return every.sub("", text)


def kept_places(text, sequences=False):
    """The places of the characters of ``text`` that :func:`drop_ignorable` keeps."""
    every = _ignorable_res()[1]
    keep = set()
    if sequences and _SEQUENCE_LOOK.search(text) is not None:
        for m in _SEQUENCE.finditer(text):
            keep.update(range(m.start(), m.end()))
    return [i for i, c in enumerate(text) if i in keep or every.match(c) is None]


# Emoji sequences (Tokenizer's emoji_sequences): the zero-width joiner between two emoji
# (👩‍💻 technologist, 👨‍👩‍👧 family, 🏳️‍🌈 rainbow flag, a skin tone or a presentation selector
# before it), and the tags of a subdivision flag (🏴󠁧󠁢󠁳󠁣󠁴󠁿 Scotland: the black flag, tag letters and
# a cancel tag), are invisible characters that drop_ignorables left out: 👩‍💻 read as 👩 and 💻
# (a woman, a laptop), and the flags of England, Scotland and Wales all as 🏴. ICU's tokenizer
# (Elasticsearch's icu_tokenizer) and Unicode's word rules (UAX #29, WB3c) keep a sequence whole:
# kept here, so that emoji_words reads the sequence as one term. (Two alternatives to the look
# behind: Python's must each be of one width.)
_SEQUENCE = re.compile(f"(?:(?<=[{_EMOJI}])|(?<=[{_EMOJI}][\ufe0f\U0001f3fb-\U0001f3ff]))\u200d(?=[{_EMOJI}])"
                       "|(?<=\U0001f3f4)[\U000e0020-\U000e007e]+\U000e007f")
_SEQUENCE_LOOK = re.compile("[\u200d\U000e007f]")
#: one emoji (Tokenizer's mapped spans: the emoji after a joiner is read with it)
EMOJI_CHAR = re.compile(f"[{_EMOJI}]")


def emoji_sequences(text, lower=True):
    """``text`` as it is: the reading is drop_ignorable's and emoji_words' (``sequences``), named
    here so that a tokenizer's later foldings (``more``) say whether it reads so."""
    return text


#: the foldings by their setting's name, in the order they run
FOLDS = {"sara_am": fold_sara_am, "ela_geminada": fold_ela, "fold_squares": fold_squares,
         "latin_digraphs": fold_digraphs, "lao_digraphs": fold_lao_digraphs,
         "cyrillic_apostrophe": fold_cyrillic_apostrophe, "sara_ae": fold_sara_ae,
         "malayalam_chillu": fold_chillu, "fold_enclosed": fold_enclosed, "emoji_sequences": emoji_sequences,
         "khanda_ta": fold_khanda_ta, "vietnamese_tones": fold_vietnamese_tones,
         "devanagari_visarga": fold_devanagari_visarga, "mai_yamok": fold_mai_yamok,
         "hangul_jamo": fold_hangul_jamo, "yiddish_ligatures": fold_yiddish_ligatures,
         "lunate_sigma": fold_lunate_sigma, "vietnamese_eth": fold_vietnamese_eth,
         "devanagari_anusvara": fold_devanagari_anusvara, "cyrillic_latin_i": fold_cyrillic_latin_i,
         "armenian_marks": fold_armenian_marks, "katakana_variants": fold_katakana_variants,
         "cyrillic_stress": fold_cyrillic_stress, "syriac_points": fold_syriac_points}


# the characters each folding looks for: one first look for those of all the foldings a tokenizer
# reads with, before any of them (a look each cost 4-6 % of a German or Japanese text's analysis)
_LOOKS_FOR = {"sara_am": "\u0e4d\u0ecd", "ela_geminada": "\u013f\u0140", "fold_squares": "\u3200-\u33ff",
              "latin_digraphs": _DIGRAPHS, "lao_digraphs": "\u0edc\u0edd",
              "cyrillic_apostrophe": "'\u2019", "sara_ae": SARA_E,
              "malayalam_chillu": "\u200d", "fold_enclosed": _ENCLOSED, "emoji_sequences": "\u200d",
              "khanda_ta": "\u200d", "vietnamese_tones": "òóỏõọùúủũụÒÓỎÕỌÙÚỦŨỤ",
              "devanagari_visarga": ":", "mai_yamok": REPEAT_MARKS,
              "hangul_jamo": "-".join(JAMO), "yiddish_ligatures": YIDDISH_LIGATURES,
              "lunate_sigma": LUNATE_SIGMA, "vietnamese_eth": ETH,
              "devanagari_anusvara": "\u094d", "cyrillic_latin_i": "\u00cf",
              "armenian_marks": ARMENIAN_MARKS, "katakana_variants": KATAKANA_VARIANTS,
              "cyrillic_stress": CYRILLIC_STRESS, "syriac_points": SYRIAC_POINTS}
_FIRST_LOOK = {}


def fold_more(text, more, lower=True):
    """``text`` with the foldings named in ``more`` (``lower``: the text was lowercased)."""
    look = _FIRST_LOOK.get(more)
    if look is None:
        look = _FIRST_LOOK[more] = (re.compile(f"[{''.join(_LOOKS_FOR[name] for name in more)}]"),
                                    "cyrillic_latin_i" in more)
    if look[0].search(text) is None and not (look[1] and latin_i_near(text)):
        return text
    for name in more:
        text = FOLDS[name](text, lower)
    return text


# the characters whose case folding is longer than one (ß, ẞ, ﬁ, ŉ, İ, Greek with iota
# subscript; all in the Basic Multilingual Plane), compiled at first use
_CASEFOLD_LONGER = [None]


def casefold_places(text):
    """The place in ``text`` of each character of ``text.casefold()`` (a letter opened into two
    gives both its place: ß is ss), or None where every character folds to one. So that spans
    of a text holding ß are read in place, not character by character (4x the time, and none
    past 200,000 characters)."""
    longer = _CASEFOLD_LONGER[0]
    if longer is None:
        longer = _CASEFOLD_LONGER[0] = re.compile(
            "[" + "".join(re.escape(chr(cp)) for cp in range(0x80, 0x10000) if len(chr(cp).casefold()) != 1) + "]")
    places, at = None, 0
    for m in longer.finditer(text):
        i = m.start()
        places = [] if places is None else places
        places.extend(range(at, i))
        places.extend([i] * len(text[i].casefold()))
        at = i + 1
    if places is not None:
        places.extend(range(at, len(text)))
    return places


# a compatibility character -> (its NFKC, that lowercased where ``lower`` and folded), by
# ``lower``; at most the ~2,000 characters of the tokenizer's _COMPATIBILITY each
COMPATIBILITY_READ = {False: {}, True: {}}
# (and a character -> that reading, looked up first: most runs are one character)
COMPATIBILITY_ALONE = {False: {}, True: {}}


def open_compatibility(run, lower, table):
    """A run of the tokenizer's ``_COMPATIBILITY`` characters as its ``_fold_variants`` reads
    it: its NFKC, lowercased where ``lower``, its letter variants (``table``) folded. (Here, not
    in the tokenizer, to keep that module under the size a module may have.)"""
    kept = COMPATIBILITY_READ[lower]
    parts = []
    for c in run:
        read = kept.get(c)
        if read is None:
            nfkc = _normalize("NFKC", c)
            read = kept[c] = (nfkc, (nfkc.lower() if lower else nfkc).translate(table))
            if read[1]:
                COMPATIBILITY_ALONE[lower][c] = read[1]
        parts.append(read)
    if len(parts) == 1:
        return parts[0][1]
    # NFKC of a run is that of its characters' NFKC joined, and where that join is already
    # normal (unless the marks of two characters meet and are put in order), the join itself;
    # lowercasing and the folding are then one character's at a time too (final sigma's context
    # aside, which the folding reads as sigma)
    opened = "".join(nfkc for nfkc, _ in parts)
    if _is_normalized("NFKC", opened):
        return "".join(read for _, read in parts)
    opened = _normalize("NFKC", opened)
    return (opened.lower() if lower else opened).translate(table)

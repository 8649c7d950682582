"""More later foldings of :class:`learnsim.text.Tokenizer` (each a later reading of
``LATER_READINGS``, registered in :data:`._folds.FOLDS`): a word of one script written two ways
that gave two terms. Here, not in :mod:`._folds` or the tokenizer, to keep those modules under
the size a module may have. The standard library only, as the tokenizer."""
from __future__ import annotations

import re

# Thai's mai yamok (ๆ U+0E46), Lao's ko la (ໆ U+0EC6) and Khmer's lek too (ៗ U+17D7, ផ្សេងៗ,
# various) say "the word before, again" (ดีๆ, good
# good, well; เด็กๆ, children), and most text writes one right after its word: read as a letter
# of the run, ดีๆ gave the bigrams ดี and ีๆ, a term of its own that ดี and ดี ๆ (the mark typed
# apart) never held, and ดี ๆ held a lone ๆ that matched every repeated word. The mark is no
# letter of a word (Lucene's Thai tokenizer and PyThaiNLP cut it off as a token of its own): read
# as a space, one character for one, so ดีๆ, ดี ๆ and ดี are one term. The word is not repeated:
# where it starts is a dictionary's business, which the bigrams do not have.
_REPEAT_MARKS = {0x0E46: " ", 0x0EC6: " ", 0x17D7: " "}
REPEAT_MARKS = "\u0e46\u0ec6\u17d7"


def fold_mai_yamok(text, lower=True):
    """``text`` with Thai's mai yamok, Lao's ko la and Khmer's lek too read as a space."""
    if "\u0e46" not in text and "\u0ec6" not in text and "\u17d7" not in text:
        return text
    return text.translate(_REPEAT_MARKS)


# Korean written in compatibility jamo (U+3131-U+3163, the letters a keyboard types and a
# decomposing tool writes out: ㅎㅏㄴㄱㅜㄱㅇㅓ for 한국어) was read letter by letter, bigrams no
# text of syllables holds. A run of them that is syllables from end to end (each a leading
# consonant, a vowel and perhaps a final consonant: every Korean syllable starts with a
# consonant, ㅇ where none is heard, so the run is cut one way only) is read as those syllables:
# the conjoining jamo the letters stand for, put in NFC (Unicode's arithmetic of a syllable's
# three jamo, done here at once). A run that is not
# (ㅋㅋㅋ, ㅠㅠ, ㄱㅅ: laughter, tears and the abbreviations of chat, consonants or vowels alone)
# is left as it is, and so is a vowel typed in two keys (ㅗㅏ for ㅘ). NFKC, ICU's too, maps each
# compatibility consonant to a leading jamo, so that a final one never joins its syllable
# (ㅎㅏㄴ is 하ᄂ).
_LEADING = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"
_FINAL = "ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ"
_JAMO_RUN = re.compile("[\u3131-\u3163]{2,}")
JAMO = ("\u3131", "\u3163")


def _is_vowel(c):
    return "\u314f" <= c <= "\u3163"


def _syllables(run):
    """The syllables of a run of compatibility jamo, or None where it is not syllables alone."""
    out, i, n = [], 0, len(run)
    while i < n:
        lead = _LEADING.find(run[i])
        if lead < 0 or i + 1 >= n or not _is_vowel(run[i + 1]):
            return None
        vowel, final, i = ord(run[i + 1]) - 0x314F, 0, i + 2
        if i < n and not _is_vowel(run[i]) and (i + 1 == n or not _is_vowel(run[i + 1])):
            final = _FINAL.find(run[i]) + 1
            if final == 0:              # ㄸ ㅃ ㅉ end no syllable
                return None
            i += 1
        out.append(chr(0xAC00 + (lead * 21 + vowel) * 28 + final))
    return "".join(out)


def fold_hangul_jamo(text, lower=True):
    """``text`` with each run of compatibility jamo that is syllables alone as those syllables."""
    if _JAMO_RUN.search(text) is None:
        return text
    return _JAMO_RUN.sub(lambda m: _syllables(m.group()) or m.group(), text)


def jamo_syllables_end(doc, i):
    """Where the run of compatibility jamo starting at ``i`` ends, where it is read as syllables
    (a text read in parts reads it whole); ``i + 1`` otherwise."""
    if not JAMO[0] <= doc[i] <= JAMO[1] or (i and JAMO[0] <= doc[i - 1] <= JAMO[1]):
        return i + 1        # (looked at from a run's start alone: a long run is read once)
    m = _JAMO_RUN.match(doc, i)
    return i + 1 if m is None or _syllables(m.group()) is None else m.end()


# Yiddish's three ligatures, װ (U+05F0, tsvey vovn), ױ (U+05F1, vov yud) and ײ (U+05F2, tsvey
# yudn, ײַ with its pasekh), which YIVO's spelling and much printed text write and as much
# typed text spells with the two letters (וו, וי, יי): װאַסער and וואַסער (water), ײַ and ייַ,
# were two terms each. NFKC keeps the ligatures (they have no decomposition), so no folding of
# ICU's meets them; read as their two letters, one character for two, as Yiddish search folds
# them (the pasekh, a vowel point, is then left out as Hebrew's are).
_YIDDISH = {0x05F0: "\u05d5\u05d5", 0x05F1: "\u05d5\u05d9", 0x05F2: "\u05d9\u05d9"}
YIDDISH_LIGATURES = "\u05f0-\u05f2"


def fold_yiddish_ligatures(text, lower=True):
    """``text`` with Yiddish's ligatures װ, ױ and ײ as their two letters."""
    if "\u05f0" not in text and "\u05f1" not in text and "\u05f2" not in text:
        return text
    return text.translate(_YIDDISH)


# Greek's lunate sigma (ϲ U+03F2, Ϲ U+03F9), the one form of sigma that editions of ancient and
# Byzantine Greek, papyri and inscriptions print (ϲοφία), and that text copied from them keeps:
# ϲοφια and σοφια (wisdom) were two terms, and case folding, which reads ϐ as β and ϑ as θ, reads
# Ϲ as ϲ, not σ. Read as sigma, one character for one, as its NFKC (ς) and the Greek folding's
# final sigma are read.
_LUNATE = {False: {0x03F2: "\u03c3", 0x03F9: "\u03a3"}, True: {0x03F2: "\u03c3", 0x03F9: "\u03c3"}}
LUNATE_SIGMA = "\u03f2\u03f9"


def fold_lunate_sigma(text, lower=True):
    """``text`` with Greek's lunate sigma as sigma (Ϲ as Σ, or σ where ``lower``: the text was)."""
    if "\u03f2" not in text and "\u03f9" not in text:
        return text
    return text.translate(_LUNATE[lower])


# Vietnamese's Đ đ (U+0110, U+0111) typed or decoded as the Icelandic eth Ð ð (U+00D0, U+00F0):
# the two capitals look alike, keyboards and autocorrect give one for the other, and Windows-1258
# (Vietnamese) puts Đ and đ where Latin-1 has Ð and ð, so Vietnamese text read as Latin-1 holds
# eth. Đà Nẵng typed Ðà Nẵng was the term ðà, never đà. Icelandic and Faroese ð must stay ð, and
# Old English and Old Norse start words with it (ðæt, ðe), some of them Vietnamese words too (đe):
# so eth is read as Đ đ only in a word that also holds a letter that these languages never write
# and Vietnamese does (ă â ê ô ơ ư, a vowel with a grave, a tilde, a hook or a dot below): Ðà,
# Ðường, Ðiện, Ðông. Ði, Ðó, Ðá (the other letters plain or acute, as Icelandic's are) stay eth.
_LATIN_WORD = re.compile("[A-Za-z\u00c0-\u024f\u1e00-\u1eff\u0300-\u036f]+")
_VIETNAMESE_ONLY = re.compile("[\u0103\u00e2\u00ea\u00f4\u01a1\u01b0\u0102\u00c2\u00ca\u00d4\u01a0\u01af"
                              "\u00e0\u00e8\u00ec\u00f2\u00f9\u00c0\u00c8\u00cc\u00d2\u00d9\u00e3\u0129\u0169\u00c3\u0128\u0168"
                              "\u00f5\u00d5\u1ea0-\u1ef9\u0300\u0303\u0309\u031b\u0323]")
_ETH = {0x00D0: "\u0110", 0x00F0: "\u0111"}
ETH = "\u00d0\u00f0"


def _eth_word(m):
    word = m.group()
    if ("\u00f0" in word or "\u00d0" in word) and _VIETNAMESE_ONLY.search(word) is not None:
        return word.translate(_ETH)
    return word


def fold_vietnamese_eth(text, lower=True):
    """``text`` with Ð and ð as Vietnamese's Đ and đ in a word holding a letter only Vietnamese
    (of the languages writing eth) writes."""
    if "\u00f0" not in text and "\u00d0" not in text:
        return text
    return _LATIN_WORD.sub(_eth_word, text)


# Devanagari writes a nasal before a consonant of its own class two ways, both standard and both
# common: as the class's nasal with a virama (हिन्दी, गङ्गा, ठण्डा, सम्बन्ध: the older spelling,
# Sanskrit's, many publishers') or as the anusvara (हिंदी, गंगा, ठंडा, संबंध: the Central Hindi
# Directorate's standard, most typed Hindi). The two are one word said alike, and were two terms:
# हिंदी never found हिन्दी. Read as the anusvara where the nasal is the class's own (ङ before
# क ख ग घ, ञ before च छ ज झ, ण before ट ठ ड ढ, न before त थ द ध, म before प फ ब भ), as Lucene's
# Hindi normaliser reads न् (it reads every न् so; a nasal before another class, or doubled, अन्न,
# is a consonant here and stays).
_CLASS_NASAL = re.compile("\u0919\u094d(?=[\u0915-\u0918])|\u091e\u094d(?=[\u091a-\u091d])|\u0923\u094d(?=[\u091f-\u0922])"
                          "|\u0928\u094d(?=[\u0924-\u0927])|\u092e\u094d(?=[\u092a-\u092d])")
NASALS = "\u0919\u091e\u0923\u0928\u092e"


def fold_devanagari_anusvara(text, lower=True):
    """``text`` with a Devanagari nasal and virama before a consonant of its class as the
    anusvara."""
    if "\u094d" not in text:
        return text
    return _CLASS_NASAL.sub("\u0902", text)


def read_with(doc, i, more):
    """Where the part of ``doc`` that a text read in parts reads at ``i`` ends (the tokenizer's
    mapped spans: a character and its marks, and what the foldings named in ``more`` read with
    it): a run of compatibility jamo read as syllables, whole; a class nasal and its virama with
    the consonant after it; an Armenian letter with the mark and the letter after it; a Katakana
    letter with the dashes after it that it reads as long marks."""
    c = doc[i]
    if c < "\u0531":           # (before Armenian, none: most of a Latin text, at a test's cost)
        return i + 1
    reads = _READS_WITH.get(more)
    if reads is None:
        reads = _READS_WITH[more] = tuple(name in more for name in ("hangul_jamo", "devanagari_anusvara", "armenian_marks",
                                                                                   "katakana_variants"))
    if reads[0] and JAMO[0] <= c <= JAMO[1]:
        return jamo_syllables_end(doc, i)
    if reads[1] and c in NASALS and _CLASS_NASAL.match(doc, i) is not None:
        return i + 3
    if reads[2] and doc[i + 1:i + 2] in ("\u055b", "\u055c", "\u055e") and _ARMENIAN_MARK.match(doc, i + 1) is not None:
        return i + 3
    if reads[3] and doc[i + 1:i + 2] in KATAKANA_VARIANTS:
        m = _KATAKANA_DASH.match(doc, i + 1)
        if m is not None and not m.group(1):
            return m.end()
    return i + 1


# ``more`` -> whether it reads jamo, nasals, Armenian marks and Katakana's dashes (read_with: a look each character)
_READS_WITH = {}


# Ukrainian's і and ї (U+0456, U+0457) typed as the Latin i and ï (U+0069, U+00EF), which look the
# same: a Russian keyboard layout has neither, and its users writing Ukrainian (and Belarusian's і)
# type the Latin letters, as much Ukrainian web text shows; old fonts and encodings did the same.
# мiсто (city, a Latin i) and місто were two terms, Украïна and Україна too. In a word holding a
# Cyrillic letter whose only Latin letters are these, they are read as the Cyrillic ones, one
# character for one; a word with other Latin letters (a name in both scripts) stays.
# (the letter first, then its neighbours: 5-10x faster than a Cyrillic letter first, which most
# Cyrillic characters start)
_LATIN_I_NEAR = re.compile("[iI\u00ef\u00cf](?:(?=[\u0400-\u04ff])|(?<=[\u0400-\u04ff].))")
_WORD = re.compile(r"\w+")
_OTHER_LATIN = re.compile("[A-HJ-Za-hj-z\u00c0-\u00ce\u00d0-\u00ee\u00f0-\u024f]")
_CYRILLIC_I = {0x69: "\u0456", 0x49: "\u0406", 0xEF: "\u0457", 0xCF: "\u0407"}


def _cyrillic_i_word(m):
    word = m.group()
    if _OTHER_LATIN.search(word) is None and any("\u0400" <= c <= "\u04ff" for c in word):
        return word.translate(_CYRILLIC_I)
    return word


def latin_i_near(text):
    """Whether ``text`` may hold a Latin i or ï beside a Cyrillic letter (a first look of its
    own: the foldings' first look is for characters, and a Latin i alone is in most Latin text,
    ï in Dutch and French; Ï, rare, is in that look)."""
    return ("i" in text or "I" in text or "\u00ef" in text) and _LATIN_I_NEAR.search(text) is not None


def fold_cyrillic_latin_i(text, lower=True):
    """``text`` with the Latin i and ï of a Cyrillic word (no other Latin letter in it) as
    Ukrainian's і and ї."""
    if _LATIN_I_NEAR.search(text) is None:
        return text
    return _WORD.sub(_cyrillic_i_word, text)


# Armenian writes its emphasis, exclamation and question marks (՛ ՜ ՞, U+055B, U+055C, U+055E)
# over the stressed vowel, inside the word: Ինչպե՞ս (how?), շա՜տ (very!), ինչո՞ւ (why?). They
# say how the sentence is said, not which word it is; read as breaks they cut the word, Ինչպե՞ս
# gave ինչպե and its ս was lost (one letter, no term), and the question never matched ինչպես.
# Between two Armenian letters they are left out (Unicode's word rules keep them inside the word,
# as letters, which would still make another term).
_ARMENIAN_MARK = re.compile("(?<=[\u0531-\u0556\u0560-\u0588])[\u055b\u055c\u055e](?=[\u0531-\u0556\u0560-\u0588])")
ARMENIAN_MARKS = "\u055b\u055c\u055e"


def fold_armenian_marks(text, lower=True):
    """``text`` without Armenian's emphasis, exclamation and question marks between two Armenian
    letters."""
    if "\u055b" not in text and "\u055c" not in text and "\u055e" not in text:
        return text
    return _ARMENIAN_MARK.sub("", text)


# Katakana written two ways. The small ヶ and ヵ (U+30F6, U+30F5) stand for 箇 or the particle が
# (霞ヶ関, 一ヵ月) and are written as often full size, ケ and カ (霞ケ関, 一カ月, as JR's station
# names and the Cabinet's counters write them): no word tells one from the other, so they are read
# as ケ and カ (Lucene's JapaneseKatakanaUppercaseFilter reads every small Katakana so; the others,
# ァ ッ ャ, spell other sounds, ファ is not フア, and stay). The long mark ー typed as a dash, the
# fullwidth hyphen-minus that an IME in its alphanumeric mode gives for the same key (－, the
# minus sign − that the JIS and Mac tables decode Shift_JIS's same character to, and the small
# ﹣), after a Katakana letter: コ－ヒ－ gave the lone コ and ヒ and never matched コーヒー
# (livedoor's news writes サ−ビス, バッテリ−, ユーザ−). Read as ー there alone (neologdn, MeCab's
# normaliser, reads － and ﹣ so everywhere), and not before a Latin letter or digit (タイプ－A). Not read so: the hyphens, ASCII
# and Unicode's ‐ ‑, which join words (セブン‐イレブン, ワン-ツー), the dashes ― — that Japanese
# sets as its dash (ジョン――), box drawing, and the wave dashes 〜 ～, which also mark a range
# (アジア〜ヨーロッパ) and a subtitle (シグナル〜月曜日のルカ), and which neologdn drops.
_SMALL_KE = {0x30F5: "\u30ab", 0x30F6: "\u30b1"}
# (the dashes whole, then what follows them: a run before a Latin letter or digit stays whole)
_KATAKANA_DASH = re.compile("(?<=[\u30a1-\u30fa\u30fc\uff66-\uff9f])[\uff0d\u2212\ufe63]+"
                            "(?=([0-9A-Za-z\uff10-\uff19\uff21-\uff3a\uff41-\uff5a])?)")
KATAKANA_VARIANTS = "\u30f5\u30f6\uff0d\u2212\ufe63"


def fold_katakana_variants(text, lower=True):
    """``text`` with the small ヶ and ヵ as ケ and カ, and a dash after a Katakana letter as the
    long mark ー."""
    if "\u30f5" in text or "\u30f6" in text:
        text = text.translate(_SMALL_KE)
    if _KATAKANA_DASH.search(text) is None:
        return text
    return _KATAKANA_DASH.sub(lambda m: m.group() if m.group(1) else "\u30fc" * len(m.group()), text)


# Russian, Ukrainian, Belarusian and Bulgarian text marks a word's stress with an acute accent over
# its vowel (a grave in some Bulgarian and Serbian text), written as a combining mark: dictionaries,
# learners' texts and the first line of Russian Wikipedia's articles (Москва́, Ю́рий Гага́рин; 23
# of Wikispeedia's articles hold one). No Cyrillic vowel has it precomposed, so NFC keeps it
# apart and the word was a term of its own that never met москва. It says how a word is said, not
# which word it is (за́мок, castle, and замо́к, lock, are one spelling, as unstressed text writes
# them), and is left out after a Cyrillic letter, as Arabic's vowel points and Greek's accents
# are. The letters that NFC composes with these marks (Macedonian's ѓ ќ, Bulgarian's ѝ ѐ) are
# letters of their own, composed before this runs, and stay.
_CYRILLIC_STRESS = re.compile("(?<=[\u0400-\u0482\u048a-\u052f])[\u0300\u0301]+")
CYRILLIC_STRESS = "\u0300\u0301"


def fold_cyrillic_stress(text, lower=True):
    """``text`` without the acute and grave accents written apart after a Cyrillic letter."""
    if "\u0301" not in text and "\u0300" not in text:
        return text
    return _CYRILLIC_STRESS.sub("", text)


# Syriac writes its vowels as optional points over and under the letters (pthaha, zqapha, rbasa,
# hbasa, esasa, rwaha, in their East and West forms) with the qushshaya and rukkakha dots of a
# consonant's hard or soft sound and the other marks of U+0730-U+074A, as Hebrew writes niqqud:
# the Peshitta, liturgy and dictionaries write them, most other text and most queries do not.
# They stayed in the word, and ܫܠܵܡܵܐ (peace, pointed) and ܫܠܡܐ were two terms; they are left out
# after a Syriac letter, as Hebrew's and Arabic's points are. The plural's seyame (U+0308, a
# grammatical mark) and the superscript alaph (U+0711, a letter's sound) stay.
_SYRIAC_POINTS = re.compile("(?<=[\u0710-\u074f])[\u0730-\u074a]+")
SYRIAC_POINTS = "\u0730-\u074a"


def fold_syriac_points(text, lower=True):
    """``text`` without Syriac's vowel points and dots after a Syriac letter."""
    return _SYRIAC_POINTS.sub("", text)

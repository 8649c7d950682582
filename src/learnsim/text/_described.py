"""Whether learnsim recognises a collection's language, and what its fallback reading does to it.

A collection whose words no shipped stop list holds 5 % of (Georgian, Amharic, a language of no
list in Latin letters) is read as English (:func:`learnsim.text.detect_language`'s fallback): the
baselines drop English's stop words and take Porter's stems, and they described that reading as
'English stop words dropped, Porter stems', as of an English collection. This says that the
language was not recognised and how much of the texts the fallback touches (Porter leaves a word
of another script whole; a made-up word ending in -s or -ing it cuts), for the reports to say so.
"""
from __future__ import annotations

from collections import Counter

__all__ = ["unrecognised_language", "describe_unrecognised"]


def unrecognised_language(texts):
    """None where the language of ``texts`` is recognised (any language but English detected, or
    English with at least :data:`MIN_STOP_SHARE` of the words its stop words, enough different ones
    (:func:`._recognised.holds_enough`)); else what English's reading, the fallback, does to their
    words, counted on the sample detection reads: a dict of ``words`` (the words counted),
    ``stop_words`` (those English's list drops), ``stemmed`` (those, not dropped, whose Porter stem
    differs; None without PyStemmer: unstemmed), and ``few_of`` and ``different``: the language
    whose list held 5 % of the words but too few different ones (:mod:`._recognised`) and how many
    different ones it held, or None and 0 where no list held 5 %."""
    from ._languages import _DETECT_CHARS, _DETECT_TEXTS, _WORD, MIN_STOP_SHARE, _detect, stop_list
    from ._recognised import holds_enough, recognised

    from ._tokenize import _SPACELESS_RUN_UT

    texts = [t for t in texts if isinstance(t, str)]
    if not texts:
        return None
    language, shares, read = _detect(texts)
    if recognised(language, shares, read, stop_list) != "english":
        return None
    step = max(1, len(texts) // _DETECT_TEXTS)
    sample = [text[:_DETECT_CHARS].lower() for text in texts[::step][:_DETECT_TEXTS]]
    # detect_language names the languages of stop lists only, and answers "english" for Japanese,
    # Chinese, Korean or Thai, whose runs every analyser reads by characters (bigrams) or a
    # segmenter's words, never by English's stop words or stems: Japanese notes were told 'their
    # language is not recognised ... read as English'. Where most letters are of those scripts,
    # the reading is theirs and nothing is said.
    letters = sum(len(w) for text in sample for w in _WORD.findall(text))
    # (the Tai scripts too, read as bigrams where a model reads them so: tai_scripts)
    spaceless = sum(len(run) for text in sample for run in _SPACELESS_RUN_UT.findall(text))
    if letters and spaceless >= 0.5 * letters:
        return None
    counts = Counter(w for text in sample for w in _WORD.findall(text))
    total = sum(counts.values())
    english = stop_list("english")
    dropped = sum(n for w, n in counts.items() if w in english)
    # English, read as it always was: 5 % of the words English's stop words, and not the same few
    # over and over (Lorem ipsum's in, do; ._recognised)
    if total and dropped >= MIN_STOP_SHARE * total and holds_enough(counts, english):
        return None
    # the list that held 5 % of the words but the same few over and over (._recognised): the
    # clause says so, not that no list held 5 %
    few_of = language if language != "english" else (
        "english" if total and dropped >= MIN_STOP_SHARE * total else None)
    held = counts if few_of is None or read is None or few_of not in read else read[few_of]
    different = 0 if few_of is None else sum(1 for w in held if w in stop_list(few_of))
    try:
        import Stemmer
    except ImportError:
        stemmed = None
    else:
        kept = [w for w in counts if w not in english]
        stemmed = sum(counts[w] for w, s in zip(kept, Stemmer.Stemmer("porter").stemWords(kept)) if s != w)
    return {"words": total, "stop_words": dropped, "stemmed": stemmed, "few_of": few_of, "different": different}


def _share(n, total):
    if n == 0:
        return "none of their words"
    return f"{n} of their {total} words ({100.0 * n / total:.0f}%)" if total else f"{n} words"


def describe_unrecognised(texts, readers="they are read", option="--language"):
    """The clause a report says of ``texts`` whose language is not recognised, or None:
    'their language is not recognised (...): the baselines read them as English, the fallback (its
    stop words are none of their words, Porter's stems change 3 of their 40 words (8%));
    --language names their language'. ``readers``: who reads them so."""
    said = unrecognised_language(texts)
    if said is None:
        return None
    total = said["words"]
    stems = ("no stems: PyStemmer is not installed" if said["stemmed"] is None
             else f"Porter's stems change {_share(said['stemmed'], total)}")
    few_of = said.get("few_of")
    held = ("no stop list learnsim ships holds 5% of their words" if not few_of else
            f"only {said['different']} different word{'' if said['different'] == 1 else 's'} of "
            f"{few_of.capitalize()}'s stop list among them: too few to tell")
    return (f"their language is not recognised ({held}): {readers} "
            f"as English, the fallback (its stop words are {_share(said['stop_words'], total)}, {stems}); "
            f"{option} names their language")

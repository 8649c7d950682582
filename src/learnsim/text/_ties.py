"""Ties of stop-word shares decided by the letters a tied language never writes.

A short sample whose one or two stop words several lists hold (Slovenian's je, in, which Dutch's,
Czech's and Serbian's lists hold too; Macedonian's на, Russian's and Serbian's too) went to the
first of the tied lists in :data:`._languages.STOP_LANGUAGES`' order: Otroci vsak dan hodijo v
šolo z mamo. was Dutch (its dan), Скопје е главен град на Македонија. Serbian (its ј), and each
was stemmed by that language's rules (a hand-made Slovenian known-item collection read as Dutch:
MRR 0.056 against 0.843 as Slovenian; a Macedonian one read as Serbian 0.181 against 0.590).
:func:`._alphabets.contradicted` puts a language out of the whole contest only where letters it
never writes are more than a few (two at least): on a tie, which only the lists' order decided,
one such letter is enough to give the tie to the others.
"""
from __future__ import annotations

import re

from ._alphabets import _LATIN, _script

# what each Cyrillic language of the lists never writes, for a tie alone: Russian never writes the
# South Slavic ј љ њ џ ѓ ќ ѕ ћ ђ, Ukrainian's і ї є ґ nor Belarusian's ў (its contest keeps
# Russian in where they are a few, as a Russian text quotes names)
_CYRILLIC_NEVER = {"russian": "јљњџѓќѕћђіїєґў"}
# Serbian's own Cyrillic letters that Macedonian does not write (ћ ђ; its ј љ њ џ are Macedonian's
# too), and Macedonian's one-letter "е" (is), which Serbian writes je (је) and Russian never
# writes alone: a tie of the two with "е" and neither ћ nor ђ is Macedonian's
_SERBIAN_NOT_MACEDONIAN = "ћђЋЂćđĆĐ"
_MACEDONIAN_IS = re.compile(r"(?<!\w)[еЕ](?!\w)")
#: A tied language loses the tie where more than this share of the sample's letters (one at
#: least) are letters it never writes (as :data:`._languages.MAX_NOT_WRITTEN_SHARE`).
MAX_TIE_FOREIGN_SHARE = 0.005


def tie_losers(sample, tied, n_letters, n_words, russian_only=True):
    """The languages of ``tied`` (those whose stop words share the top for ``sample``, of
    ``n_letters`` letters and ``n_words`` words) that the sample's letters put out of the tie:
    a Latin-script language of :data:`._alphabets._LATIN` whose alphabet lacks letters the sample
    writes, Russian where it writes the Cyrillic letters above, Serbian where Macedonian ties with
    it and the sample writes Macedonian's "е" and neither ћ nor ђ, and Russian where Macedonian ties
    with it and the sample writes nothing only Russian writes (``russian_only`` false: no reflexive
    -ся, -сь, no ь but before о, as :func:`._languages.detect_language` gives a tie of Russian with
    Bulgarian to Bulgarian; Macedonian is contested only where the sample writes almost none of
    Russian's ы э ё й я ю ь ъ щ). At most all but one of them."""
    if sample.isascii():
        return set()
    bound = MAX_TIE_FOREIGN_SHARE * n_letters
    lower = sample.lower()
    written = {}
    for ch in set(lower):
        if not ch.isascii() and _script(ch) is not None:
            written[ch] = lower.count(ch)
    out = set()
    for name in tied:
        if name in _LATIN:
            foreign = sum(n for ch, n in written.items() if _script(ch) == "latin" and ch not in _LATIN[name])
        elif name in _CYRILLIC_NEVER:
            foreign = sum(written.get(ch, 0) for ch in _CYRILLIC_NEVER[name])
        else:
            continue
        if foreign > bound:
            out.add(name)
    if {"serbian", "macedonian"} <= set(tied) and not any(c in sample for c in _SERBIAN_NOT_MACEDONIAN) \
            and len(_MACEDONIAN_IS.findall(sample)) > MAX_TIE_FOREIGN_SHARE * n_words:
        out.add("serbian")
    if {"russian", "macedonian"} <= set(tied) and not russian_only:
        # Читам нова книга во библиотеката.: во is both lists', and Russian, read first, took it
        out.add("russian")
    # (every tied language out: the order decides, as before)
    return out if len(out) < len(tied) else set()

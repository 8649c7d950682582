"""Telugu light stemming, the rules of Lucene's ``TeluguNormalizer`` and ``TeluguStemmer`` (what
Lucene's Telugu analyser, since 9.0, stems with), in pure Python: ``stem="telugu_light"``.

Ported from Apache Lucene (lucene/analysis/common/.../analysis/te/TeluguNormalizer.java and
TeluguStemmer.java, Apache License 2.0):

- normalise: the candrabindu ``ఀ ఁ`` read as the bindu ``ం``; the visarga ``ః``, the zero-width
  joiner and non-joiner left out; a long vowel read as its short one, standing alone (``ఆ`` ``అ``,
  ``ఈ`` ``ఇ``, ``ఊ`` ``ఉ``, ``ఐ`` ``ఏ``, ``ఔ`` ``ఓ``) and as a sign (``ీ`` ``ి``, ``ూ`` ``ు``,
  ``ే`` ``ె``, ``ో`` ``ొ``); ``ె`` with the ai length mark as ``ై``, ``ఒ`` with ``ౕ`` as ``ఓ``
  and with ``ౌ`` as ``ఔ``;
- take off the first suffix that fits: ``ళ్ళు`` or ``డ్లు`` where more than five letters make the
  word, one of ``డు ము వు లు ని ను చే కై లో ది కి సు వై పై`` where more than three, a final
  vowel sign where more than two. So ``డాక్టర్లు`` (doctors) meets ``డాక్టర్``, and ``రైతులు``
  (farmers) is ``రైతు``, but ``రైతు`` itself loses its final ``ు``, and ``పుస్తకాలు`` (books) is
  ``పుస్తకా``, apart from ``పుస్తకం``: Lucene's stemmer is this light. A suffix it lists with a
  long vowel (``లో``, ``చే``) is matched on the normalised word, as Lucene matches it, and never fits.

Snowball has no Telugu stemmer; Lucene's is the one with published rules and a licence.
"""
from __future__ import annotations

__all__ = ["telugu_light_stem"]

_MAP = {"\u0c00": "\u0c02", "\u0c01": "\u0c02", "\u0c14": "\u0c13", "\u0c10": "\u0c0f", "\u0c06": "\u0c05",
        "\u0c08": "\u0c07", "\u0c0a": "\u0c09", "\u0c40": "\u0c3f", "\u0c42": "\u0c41", "\u0c47": "\u0c46",
        "\u0c4b": "\u0c4a"}
_DROP = ("\u0c03", "\u200d", "\u200c")


def _normalize(word):
    """``word`` as Lucene's TeluguNormalizer writes it."""
    s = list(word)
    i = 0
    while i < len(s):
        c = s[i]
        if c in _DROP:
            del s[i]
            continue
        if c in _MAP:
            s[i] = _MAP[c]
        nxt = s[i + 1] if i + 1 < len(s) else ""
        # (Lucene reads the character as it was before the mapping above: ే is no ె there)
        if c == "\u0c46" and nxt == "\u0c56":
            s[i] = "\u0c48"
            del s[i + 1]
        elif c == "\u0c12" and nxt in ("\u0c55", "\u0c4c"):
            s[i] = "\u0c13" if nxt == "\u0c55" else "\u0c14"
            del s[i + 1]
        i += 1
    return "".join(s)


# (more letters than this in the word, its suffixes of one length), as Lucene tries them
_SUFFIXES = ((5, ("ళ్ళు", "డ్లు")),
             (3, ("డు", "ము", "వు", "లు", "ని", "ను", "చే", "కై", "లో", "ది", "కి", "సు", "వై", "పై")),
             (2, ("ి", "ీ", "ు", "ూ", "ె", "ే", "ొ", "ో", "ా")))


def telugu_light_stem(word):
    """``word`` normalised and light-stemmed as Lucene's Telugu analyser stems it; a word of no
    Telugu comes back as it is.

    Examples
    --------
    >>> telugu_light_stem("రైతులు") == telugu_light_stem("రైతు") + "\u0c41"
    True
    >>> telugu_light_stem("డాక్టర్లు") == telugu_light_stem("డాక్టర్")
    True
    """
    if not any("\u0c00" <= c <= "\u0c7f" for c in word):
        return word
    word = _normalize(word)
    n = len(word)
    for more_than, suffixes in _SUFFIXES:
        if n > more_than and word.endswith(suffixes):
            return word[:-len(suffixes[0])]
    return word

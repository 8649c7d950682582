"""Bulgarian light stemming, the rules of Lucene's ``BulgarianStemmer`` (what Elasticsearch's
``bulgarian`` analyser stems with), in pure Python: ``stem="bulgarian_light"``.

The rules are Savoy's light stemmer ("Searching strategies for the Bulgarian language",
Information Retrieval 10, 2007), as Lucene writes them
(lucene/analysis/common/.../analysis/bg/BulgarianStemmer.java), on a lower-case word; a word of
fewer than four letters is left as it is:

- a word of over 5 letters ending in ``ища`` loses it, and nothing more is done;
- the definite article: ``ият`` (over 6 letters), else ``ът то те та ия`` (over 5), else ``ят``
  (over 4) is taken off;
- the plural: ``овци`` is ``о``, ``ове`` goes, ``еве`` is ``й`` (over 6 letters); else ``ища`` and
  ``та`` go, ``ци`` is ``к``, ``зи`` ``г``, and ``е?и`` is ``я?`` (over 5); else ``си`` is ``х``
  and ``и`` goes (over 4);
- then, over 3 letters, a final ``я`` and then a final ``а о е`` go; ``ен`` at the end of over 4
  letters is ``н``, and over 5 letters ``ъ`` before the last letter goes.

So ``град``, ``градът``, ``града`` and ``градове`` are all ``град``; ``книга``, ``книгата`` and
``книги`` are ``книг``; ``лекари`` and ``лекарят`` are ``лекар``, ``ученици`` ``ученик``. Why this and not a Snowball
stemmer: Snowball has none for Bulgarian (nor does PyStemmer), and this is what an Elasticsearch
user's ``bulgarian`` analyser gives.
"""
from __future__ import annotations

__all__ = ["bulgarian_light_stem"]


def bulgarian_light_stem(word):
    """``word`` (lower case) light-stemmed as Lucene's Bulgarian analyser stems it; a word of
    another alphabet comes back as it is.

    Examples
    --------
    >>> [bulgarian_light_stem(w) for w in ("град", "градът", "градове")]
    ['град', 'град', 'град']
    >>> bulgarian_light_stem("книгата")
    'книг'
    """
    if len(word) < 4:
        return word
    if len(word) > 5 and word.endswith("ища"):
        return word[:-3]
    word = _remove_plural(_remove_article(word))
    if len(word) > 3:
        if word.endswith("я"):
            word = word[:-1]
        if word.endswith(("а", "о", "е")):
            word = word[:-1]
    # Lucene: "the rule to rewrite ен -> н is duplicated in the paper"; it is applied once
    if len(word) > 4 and word.endswith("ен"):
        word = word[:-2] + "н"
    if len(word) > 5 and word[-2] == "ъ":
        word = word[:-2] + word[-1]
    return word


def _remove_article(word):
    n = len(word)
    if n > 6 and word.endswith("ият"):
        return word[:-3]
    if n > 5 and word.endswith(("ът", "то", "те", "та", "ия")):
        return word[:-2]
    if n > 4 and word.endswith("ят"):
        return word[:-2]
    return word


def _remove_plural(word):
    n = len(word)
    if n > 6:
        if word.endswith("овци"):
            return word[:-3]            # овци -> о
        if word.endswith("ове"):
            return word[:-3]
        if word.endswith("еве"):
            return word[:-3] + "й"      # еве -> й
    if n > 5:
        if word.endswith("ища"):
            return word[:-3]
        if word.endswith("та"):
            return word[:-2]
        if word.endswith("ци"):
            return word[:-2] + "к"      # ци -> к
        if word.endswith("зи"):
            return word[:-2] + "г"      # зи -> г
        if word[-3] == "е" and word[-1] == "и":
            return word[:-3] + "я" + word[-2]   # е?и -> я?
    if n > 4:
        if word.endswith("си"):
            return word[:-2] + "х"      # си -> х
        if word.endswith("и"):
            return word[:-1]
    return word

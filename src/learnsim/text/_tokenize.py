"""Turn one document into terms (:class:`Tokenizer`): the standard library only, so that an
index can tokenise queries without importing scikit-learn (:mod:`learnsim.index._query`).
:mod:`learnsim.text` re-exports everything here."""
from __future__ import annotations

import numbers
import re

__all__ = ["Tokenizer", "DEFAULT_TOKEN_PATTERN"]

DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"


def _english_stop_words():
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
    return ENGLISH_STOP_WORDS


def _load_porter_stemmer():
    try:
        import Stemmer
    except ImportError:
        raise ImportError("stem='porter' needs the PyStemmer package: pip install learnsim[stem] "
                          "(or pip install PyStemmer)") from None
    return Stemmer.Stemmer("porter")


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

    The steps, in order: lowercase, extract tokens with ``token_pattern``, drop stop words,
    stem, form n-grams (joined with a single space) over the remaining tokens.

    Parameters
    ----------
    lowercase : bool, default=True
        Lowercase the document before tokenising.
    token_pattern : str, default=r"(?u)\\b\\w\\w+\\b"
        Regular expression for a token (scikit-learn's default: words of two or more word
        characters). With one capturing group, the group is the token.
    stop_words : None, "english" or iterable of str, default=None
        Words to drop. ``"english"`` is scikit-learn's ``ENGLISH_STOP_WORDS``. Matching ignores
        case, so ``"The"`` is dropped even with ``lowercase=False``. Stop words are removed
        before stemming, so list surface forms.
    stem : None or "porter", default=None
        Porter stemming via the optional PyStemmer package (``pip install learnsim[stem]``).
        Stems of words already seen are cached.
    ngram_range : (int, int), default=(1, 1)
        Smallest and largest n-gram length; ``(1, 2)`` gives words and word bigrams.

    Examples
    --------
    >>> from learnsim.text import Tokenizer
    >>> Tokenizer()("The cat sat on the mat, a cat!")
    ['the', 'cat', 'sat', 'on', 'the', 'mat', 'cat']
    >>> Tokenizer(stop_words=["the", "on"], ngram_range=(1, 2))("The cat sat on the mat")
    ['cat', 'sat', 'mat', 'cat sat', 'sat mat']
    """

    def __init__(self, lowercase=True, token_pattern=DEFAULT_TOKEN_PATTERN, stop_words=None,
                 stem=None, ngram_range=(1, 1)):
        self.lowercase = bool(lowercase)
        self.token_pattern = token_pattern
        self.stop_words = stop_words
        self.stem = stem
        self.ngram_range = _check_ngram_range(ngram_range)

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

        if stem is None:
            self._stemmer = None
        elif stem == "porter":
            self._stemmer = _load_porter_stemmer()
        else:
            raise ValueError(f"stem must be None or 'porter'; got {stem!r}")
        self._stem_cache = {}

    @staticmethod
    def _resolve_stop_words(stop_words):
        if stop_words is None:
            return None
        if isinstance(stop_words, str):
            if stop_words == "english":
                return frozenset(_english_stop_words())
            raise ValueError(f"stop_words must be None, 'english' or an iterable of words; got {stop_words!r} "
                             "(only the English list is built in)")
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
                f"stop_words={self.stop_words!r}, stem={self.stem!r}, ngram_range={self.ngram_range})")

    def _stem_tokens(self, tokens):
        cache = self._stem_cache
        unseen = [t for t in set(tokens) if t not in cache]
        if unseen:
            cache.update(zip(unseen, self._stemmer.stemWords(unseen)))
        return [cache[t] for t in tokens]

    def spans(self, doc):
        """Where each word of ``doc`` stands: a list of ``(start, end, term)``, ``doc[start:end]``
        being the text that became the unigram ``term`` (lower-cased and stemmed as in
        :meth:`__call__`; stop words left out). Used to highlight the words an explanation names.

        Lowercasing that changes a text's length (a few non-ASCII letters, e.g. U+0130) would move
        every later position: such a text gets no spans rather than wrong ones.
        """
        if not isinstance(doc, str):
            raise TypeError(f"Tokenizer expects a str document; got {type(doc).__name__}")
        lowered = doc.lower() if self.lowercase else doc
        if len(lowered) != len(doc):
            return []
        group = 1 if self._regex.groups == 1 else 0
        out = []
        for m in self._regex.finditer(lowered):
            token = m.group(group)
            if self._stop_set is not None and token.lower() in self._stop_set:
                continue
            out.append((m.start(group), m.end(group), token))
        if self._stemmer is not None and out:
            stems = self._stem_tokens([t for _, _, t in out])
            out = [(a, b, stem) for (a, b, _), stem in zip(out, stems)]
        return out

    def __call__(self, doc):
        if not isinstance(doc, str):
            raise TypeError(f"Tokenizer expects a str document; got {type(doc).__name__}")
        if self.lowercase:
            doc = doc.lower()
        tokens = self._regex.findall(doc)
        if self._stop_set is not None:
            stop = self._stop_set
            if self.lowercase:
                tokens = [t for t in tokens if t not in stop]
            else:
                tokens = [t for t in tokens if t.lower() not in stop]
        if self._stemmer is not None and tokens:
            tokens = self._stem_tokens(tokens)
        min_n, max_n = self.ngram_range
        if max_n == 1:
            return tokens
        terms = list(tokens) if min_n == 1 else []
        for n in range(max(min_n, 2), max_n + 1):
            terms.extend(" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
        return terms

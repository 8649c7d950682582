"""What the fitting recipes share: :mod:`learnsim.fitting` and the recipe module of each method
package (:mod:`learnsim.mcd.recipe`, :mod:`learnsim.film.recipe`, :mod:`learnsim.linklearn.recipe`,
:mod:`learnsim.relative.recipe`).

It sits below them all: ``fitting`` imports the recipes, so a recipe may import nothing of
``fitting``, nor of the pipeline above it. A recipe therefore does not build the
:class:`learnsim.fitting.FitResult`: it returns a :class:`Fitted` (its report so far, the parts
of the pipeline, the timings and its method's details), and ``fitting`` makes the pipeline of the
parts and the FitResult of it.
"""
from __future__ import annotations

import math
import numbers
import time

import numpy as np

from ._utils.callers import warn_outside
from ._utils.inputs import check_text, short_repr
from ._utils.progress import stage
# (defined there, for the command line's parser: this module brings numpy)
from ._defaults import MATCHER_CHOICES

__all__ = ["Fitted", "vectorize", "reading", "check_stem_language", "record_language", "quiet", "option_name", "report_dict", "MATCHER_CHOICES", "pair_grades", "check_sequence", "check_texts",
           "is_index", "check_index_tuples", "cluster_codes", "check_pairs", "check_int", "check_float", "check_choice"]


class Fitted:
    """What a method's recipe returns to :mod:`learnsim.fitting`, which wraps it into a
    :class:`learnsim.fitting.FitResult`: ``summary`` (the report, without the timings),
    ``parts`` (the dict of parts of the pipeline), ``vec_seconds`` and ``metric_seconds``, and
    ``details`` (the method's objects behind the report, the FitResult's ``details``)."""

    def __init__(self, summary, parts, vec_seconds, metric_seconds, /, **details):
        self.summary, self.parts, self.details = summary, parts, details
        self.vec_seconds, self.metric_seconds = vec_seconds, metric_seconds

    def __repr__(self):
        return f"Fitted({sorted(self.parts)}, {len(self.summary)} report entries)"


def quiet(message, info=False):
    """The library's notes: what changes the result is a warning; what only informs is silent."""
    if not info:
        warn_outside(message, UserWarning, stacklevel=3)


def option_name(flags, name):
    """How a message names option ``name``: the library's keyword, or the CLI's flag."""
    return (flags or {}).get(name, name)


def vectorize(o, texts, weighting, summary):
    """(fitted TextVectorizer, float64 X, seconds) for mcd and FILM with ``weighting`` and the
    vectoriser options of ``o`` (a :class:`learnsim.fitting.FitOptions`); with ``o.encoder``, (the encoder, its
    dense float64 vectors, seconds)."""
    from .text import TextVectorizer

    if o.encoder is not None:
        from .text.encoders import encode, encoder_name

        start = time.perf_counter()
        with stage(f"encoding {len(texts)} texts with {encoder_name(o.encoder)}"):
            X = np.asarray(encode(o.encoder, texts), dtype=np.float64)
        seconds = time.perf_counter() - start
        summary.update(features=int(X.shape[1]), weighting=None, lsi_components=None,
                       encoder=encoder_name(o.encoder))
        return o.encoder, X, seconds

    stop_words, stem = reading(o, texts)
    vectorizer = TextVectorizer(weighting=weighting, norm=o.norm, stop_words=stop_words, stem=stem,
                                n_components=o.lsi, random_state=o.random_state, **o.analysis)
    start = time.perf_counter()
    X = vectorizer.fit_transform(texts)
    X = X.astype(np.float64) if X.dtype != np.float64 else X
    seconds = time.perf_counter() - start
    summary.update(features=int(X.shape[1]), weighting=weighting, lsi_components=vectorizer.n_components_)
    return vectorizer, X, seconds


def fit_language(o, texts):
    """The language (a name of :data:`learnsim.text.STOP_LANGUAGES`) whose stop words and
    stems a learned model's vectoriser takes: ``o.language`` where it names one, else the
    stop list ``o.stop_words`` names, else the collection's (detected as the baselines detect
    it) where ``o.stop_words`` is "auto", else English (what every fit read before)."""
    from .text import check_language, detect_language

    try:
        given = check_language(o.language)
    except ValueError:      # ja, zh, ko, th: no stop list, words read by English rules as before
        given = None
    if given is not None:
        return given
    if o.stop_words == "auto":
        return detect_language(texts)
    return o.stop_words or "english"


_ENGLISH_STEMMED = ("ja", "jpn", "zh", "zho", "chi", "cmn", "eng")


def check_stem_language(language, stem, stop_words=None, cli=False):
    """A ValueError where ``stem`` is true, no ``stop_words`` are given and ``language`` is a code
    learnsim has no stop list nor stemmer of and reads with no analyser of its own (``"xx"``,
    ``"yo"``): the fit would stem its words with Porter's English rules (:func:`fit_language`
    falls back to English) though the texts were said to be in another language. With
    ``stop_words`` (a list's language, or "auto": the collection's) the stems are that language's,
    as documented. Japanese and Chinese (``"ja"``, ``"zh"``: their analysers' words, English stems
    of the Latin words among them) and English's three-letter ``"eng"`` read as before. ``cli``:
    the message names ``learnsim fit``'s flags."""
    if not stem or language is None or stop_words is not None:
        return
    from .text import check_language
    from .text._languages import stemmed_language_codes

    try:
        check_language(language)
        return
    except ValueError:
        pass
    # the codes of Japanese and Chinese (their analysers' words; ISO 639-2/3 too) and English's 639-2
    if isinstance(language, str) and language.lower().replace("_", "-").split("-")[0] in _ENGLISH_STEMMED:
        return
    given, asked = (f"--language {language}", "--stem") if cli else (f"language={language!r}", "stem=True")
    raise ValueError(f"{given} with {asked}: learnsim has no stemmer nor stop list of that language, and would stem "
                     f"it by English rules; give one of {', '.join(stemmed_language_codes())} (or its name), or leave "
                     f"{asked.split('=')[0]} off")


def reading(o, texts, stem=None):
    """(stop_words, stem) of a learned model's vectoriser: ``o.stop_words`` ("auto": the fit's
    language's list) and, where ``stem`` (default ``o.stem``) is true, the fit's language's
    Snowball stemmer, Porter's for English, Lucene's light stemmers for Arabic, Hindi, Persian, Czech and
    Bulgarian: an English fit reads as it always did, and a French or Arabic one as its baselines do
    (:func:`fit_language`); a language of no stemmer (Ukrainian, Slovak) is unstemmed, with a warning.
    Stems asked for (``o.stem`` True) with no language named and no stop list take the
    collection's language, detected, with a warning naming it (they were Porter's English stems on
    any language); a ``stem`` given (LinkLearn's paper reading, Porter's) reads as it says."""
    detect = stem is None and o.stem is True and o.language is None and o.stop_words is None
    stem = o.stem if stem is None else stem
    if not stem and o.stop_words != "auto":
        return o.stop_words, None
    if detect:      # the collection's, as --stop-words auto and the baselines detect it
        from .text import detect_language

        language = detect_language(texts)
    else:
        language = fit_language(o, texts)
    stop_words = language if o.stop_words == "auto" else o.stop_words
    if not stem:
        return stop_words, None
    from .text import baseline_reading

    # the baselines' stemmer of the language, named whether or not PyStemmer is installed (a
    # Snowball one then says to install it)
    stemmer = baseline_reading(language, stemmer_installed=True)[1]
    if stemmer is None:
        # asked for stems, the fit would read its words whole without a word: Ukrainian and Slovak
        # have no stemmer, Polish none in a PyStemmer before 3
        title = language.capitalize()
        why = (f"the installed PyStemmer has no {title} stemmer (pip install -U PyStemmer)" if language == "polish"
               else f"learnsim has no stemmer of {title} (neither Lucene nor Snowball has one)")
        quiet(f"stem: {why}; the model reads {title} words unstemmed")
    elif detect and language != "english":
        # what --stop-words auto and the baselines read; said, as the same flag stemmed by
        # Porter's English rules before and a model fitted again now reads otherwise
        # a borrowed stemmer (Slovenian reads by Serbian's, Afrikaans by Dutch's) is named by its own
        # language: "Slovenian rules ('serbian')" read as if Slovenian had rules of its own
        own = stemmer[:-len("_light")] if stemmer.endswith("_light") else stemmer
        rules = (f"{own.capitalize()} rules ({stemmer!r})" if own == language else
                 f"{own.capitalize()} rules ({stemmer!r}; {language.capitalize()} has no stemmer of its own)")
        quiet(f"stem: the texts read as {language.capitalize()} (detected from the collection), and are stemmed "
              f"by {rules}, not Porter's English ones; give --language en "
              f"(language='en') for Porter's, or another language's code")
    return stop_words, stemmer


def report_dict(report):
    """The JSON-ready dict of a held-out report (:class:`learnsim.baseline.BaselineGain`), or None."""
    return None if report is None else report.to_dict()


# ---------------------------------------------------------------------------- learnsim.fit's arguments

def pair_grades(pairs):
    """(relevance grades of the pairs, whether they are relevance judgements: never a duplicate
    rule). learnsim.supervision is imported here: it imports scipy's sparse solvers."""
    from .supervision import Judgements, relevance_grades

    return relevance_grades(pairs), isinstance(pairs, Judgements)


def check_sequence(value, name, form):
    """``value`` as a non-empty list (a TypeError or ValueError naming ``name``, a list of ``form``)."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__") or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a list of {form}; got {type(value).__name__}")
    if len(value) == 0:
        raise ValueError(f"{name} is empty")
    return list(value)


def check_texts(texts):
    """``texts`` as a non-empty list of str, none holding a lone surrogate."""
    texts = check_sequence(texts, "texts", "str")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] must be a str; got {type(text).__name__}")
        check_text(text, f"texts[{i}]")     # a lone surrogate, as search and the index refuse it
    return texts


def is_index(value):
    """Whether ``value`` is an integer index (not a bool)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def check_index_tuples(rows, width, n_texts, name, form):
    """An (m, width) int64 array of the index tuples ``rows`` into ``n_texts`` texts."""
    rows = check_sequence(rows, name, f"{form} tuples")
    out = np.empty((len(rows), width), dtype=np.int64)
    for r, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or len(row) != width:
            raise ValueError(f"{name}[{r}] must be a tuple {form} of {width} indices into texts; got {row!r}")
        for c, value in enumerate(row):
            if not is_index(value):
                raise TypeError(f"{name}[{r}] must hold integer indices into texts; got {type(value).__name__} {value!r}")
            if not 0 <= value < n_texts:
                raise ValueError(f"{name}[{r}] names text {value}, outside texts (0 to {n_texts - 1})")
            out[r, c] = value
    return out


def cluster_codes(clusters, n_texts):
    """Cluster codes as ``learnsim fit`` makes them of a file's labels (documents.cluster_codes):
    the labels compared as strings in NFC, stripped, and sorted, -1 for no cluster and for a label of one
    text; an empty label is an error, as in a file (not a cluster of every text that has none).
    Returns ``(codes, n_single)``: n_single counts the labels of a single text."""
    labels = check_sequence(clusters, "clusters", "labels (int, str or None)")
    if len(labels) != n_texts:
        raise ValueError(f"clusters has {len(labels)} labels but texts has {n_texts} texts; give one label per text")
    names = []
    for i, label in enumerate(labels):
        if label is None:
            names.append(None)
        elif is_index(label) or isinstance(label, str):
            # as read from a file: label -1 is in no cluster, a label is stripped and never empty
            name = str(label).strip()
            if not name:
                raise ValueError(f"clusters[{i}] is an empty label {label!r}; a text in no cluster has the label None "
                                 "or -1")
            names.append(None if name == "-1" else name)
        else:
            raise TypeError(f"clusters[{i}] must be an int, a str or None (-1 or None: in no cluster); got "
                            f"{type(label).__name__} {label!r}")
    # the file reader's rule (labels compared in NFC), not a copy of it
    from .datasets.documents import _label_codes

    codes, kept, n_single = _label_codes(names, min_size=2)
    if not kept:
        raise ValueError("clusters: no label has two or more texts; a metric is learned from clusters of at least "
                         "two texts")
    return codes, n_single


def _pair_value(value, r):
    """A pair's label (int 0/1, or a bool) or score (any other finite real number)."""
    from .datasets.pairs import MAX_SCORE

    if isinstance(value, (bool, np.bool_)):
        return int(value)
    try:
        if isinstance(value, numbers.Real) and math.isfinite(value) and abs(value) <= MAX_SCORE:
            return value
    except OverflowError:       # an integer of hundreds of digits is no float
        pass
    raise ValueError(f"pairs[{r}]: the third value must be a label (1 = duplicate, 0 = not, True or False) or a "
                     f"graded score (a finite number within +-{MAX_SCORE:g}); got {short_repr(value)}")


def _pair_values(rows):
    """(values, graded): labels when every value is 0 or 1 (or a bool), else float scores."""
    values = [_pair_value(row[2], r) for r, row in enumerate(rows)]
    if all(v in (0, 1) for v in values):
        return [int(v) for v in values], False
    return [float(v) for v in values], True


def check_pairs(pairs, texts):
    """(texts, Pairs) of index pairs into ``texts`` or, with texts None, of pairs of texts."""
    from ._inputs import is_pair_data
    from .supervision import Pairs

    if is_pair_data(pairs):
        # read by read_pairs (from a file, a table or by the caller): the texts are its own
        return [str(t) for t in pairs.texts], pairs.pairs

    form = "(i, j, label)" if texts is not None else "(text_a, text_b, label)"
    rows = check_sequence(pairs, "pairs", f"{form} tuples")
    for r, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or len(row) != 3:
            raise ValueError(f"pairs[{r}] must be a tuple {form}; got {row!r}")
    labels, graded = _pair_values(rows)
    if texts is not None:
        indices = check_index_tuples([row[:2] for row in rows], 2, len(texts), "pairs", "(i, j)")
        if graded:
            return texts, Pairs(indices, scores=np.array(labels, dtype=np.float64))
        return texts, Pairs(indices, labels=np.array(labels, dtype=bool))
    from .datasets import read_pairs

    for r, row in enumerate(rows):
        if not (isinstance(row[0], str) and isinstance(row[1], str)):
            raise TypeError(f"pairs[{r}]: without texts, a pair is (text_a, text_b, label) of two str; got "
                            f"{type(row[0]).__name__} and {type(row[1]).__name__} (give texts to pair indices)")
    # the reader of learnsim fit --pairs: distinct texts in order of first appearance, a pair of
    # two identical texts gets a copy of its text
    data = read_pairs([(a, b, label) for (a, b, _), label in zip(rows, labels)],
                      label_kind="graded" if graded else "binary")
    return [str(t) for t in data.texts], data.pairs


def check_int(value, name, minimum):
    """``value``, an integer of at least ``minimum``, as int (a fit option's check)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {value}")
    return int(value)


def check_float(value, name, low, high, closed=False):
    """``value``, a finite number inside the bounds (closed or open; ``high`` None: none), as float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number; got {type(value).__name__}")
    value = float(value)
    inside = (low <= value if closed else low < value) and (high is None or (value <= high if closed else value < high))
    if not (np.isfinite(value) and inside):
        bounds = f"[{low:g}, {high:g}]" if closed and high is not None else (
            f"({low:g}, {high:g})" if high is not None else f"{'>=' if closed else '>'} {low:g}")
        raise ValueError(f"{name} must be {'in ' if high is not None else ''}{bounds}; got {value!r}")
    return value


def check_choice(value, name, choices):
    """``value`` where it is one of ``choices``; a ValueError naming them otherwise."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(repr(c) for c in choices)}; got {value!r}")
    return value


def record_language(pipeline, language):
    """``pipeline`` with ``language`` (a fit's ``language=``, ``--language``, as given) recorded in
    its term vectorisers (``TextVectorizer.language``), where one was given: the fit's check read
    the baselines in it, and ``learnsim evaluate`` reads them so from the saved model (the stop
    words and stems alone said nothing of it where neither was asked for)."""
    from .text import TextVectorizer

    if language is not None:
        for part in (pipeline.vectorizer, pipeline.lexical):
            if type(part) is TextVectorizer:        # the hashing and Dask vectorisers take no language
                part.language = language
    return pipeline


def new_text_vectors(o, vectorizer):
    """texts -> rows of the fit's vectors (its fitted vectoriser's, or its encoder's, float64): how
    a check turns texts it makes (:mod:`learnsim.baseline._probe`) into what the learner reads."""
    if o.encoder is not None:
        from .text.encoders import encode

        return lambda texts: np.asarray(encode(o.encoder, texts), dtype=np.float64)
    return vectorizer.transform

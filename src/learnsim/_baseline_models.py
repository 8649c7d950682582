"""The models a fit may end as when nothing it learned beats a baseline (issue 42).

A fit that ranks documents is checked against the strongest baseline a user has on the same
collection (:mod:`learnsim.baseline`): Okapi BM25, the tf.idf cosine, a sentence encoder's
cosine, and BM25 mixed with that cosine. When the learned model does not beat it, the fit *is*
that baseline: :func:`baseline_pipeline` builds it as a fitted :class:`learnsim.pipeline.Pipeline`,
which saves, loads, searches, explains and is indexed like every other model, and whose
``scoring`` says plainly what it is ("BM25", "tf.idf cosine", "encoder cosine",
"hybrid (0.3 x BM25 + 0.7 x encoder cosine)").

BM25 and the tf.idf cosine score exactly as ``learnsim evaluate`` computes its baselines: the
collection's own term counts (its language's stop words dropped and its stems taken where
PyStemmer is installed: English's list and Porter stems for English, as always; the fit passes
the language its check's baselines read), BM25 with k1 1.5 and b 0.6 and binary queries, the cosine of raw tf x log N/df. The
texts given fix only the tokenizer's vectoriser: every search takes the searched collection's
own vocabulary and statistics (issue 32).
"""
from __future__ import annotations

import warnings

import numpy as np

__all__ = ["BASELINE_MODELS", "baseline_pipeline"]

#: The baselines a fit may end as, by the names ``learnsim.baseline`` gives them.
BASELINE_MODELS = ("bm25", "cosine", "encoder", "encoder+bm25")


def baseline_pipeline(name, texts=None, *, encoder=None, lexical_weight=None, analysis=None, language=None):
    """The fitted Pipeline of a baseline: what a fit that ends as it returns.

    Parameters
    ----------
    name : {"bm25", "cosine", "encoder", "encoder+bm25"}
        ``"bm25"``: Okapi BM25 (:class:`learnsim.linklearn.LearnedBM25` at BM25's parameters).
        ``"cosine"``: the tf.idf cosine (:meth:`learnsim.linklearn.LinkLearn.from_baseline`).
        ``"encoder"``: the encoder's cosine (:meth:`learnsim.pipeline.Pipeline.from_encoder`).
        ``"encoder+bm25"``: ``lexical_weight x BM25 / Z(q) + (1 - lexical_weight) x`` the
        encoder's cosine (:mod:`learnsim.scorer`).
    texts : list of str
        The texts the term counts' vectoriser is fitted on (all but ``"encoder"``); searches use
        the searched collection's vocabulary and statistics anyway.
    encoder : str, path-like or fitted encoder
        ``"encoder"`` and ``"encoder+bm25"``: a model folder or name
        (:func:`learnsim.text.encoders.load_encoder`) or a fitted encoder object.
    lexical_weight : float in [0, 1]
        ``"encoder+bm25"``: the weight of normalised BM25 in the mix (chosen elsewhere, on
        held-out queries).
    analysis : dict, optional
        How the term counts cut text (:func:`learnsim.text.check_analysis`): the fit's own.
    language : str, optional
        Whose stop words and stems the term counts take (:class:`learnsim.baseline.LexicalBaselines`'s
        ``language``: the one the fit's check read, ``baselines.lexical.language``); None: the
        language of ``texts`` (:func:`learnsim.text.detect_language`).

    Returns
    -------
    learnsim.pipeline.Pipeline

    Examples
    --------
    >>> from learnsim._baseline_models import baseline_pipeline
    >>> texts = ["the cat sat on the mat", "dogs bark at night", "a cat and a dog", "rain falls at night",
    ...          "the sun is out", "a bird sings"]
    >>> bm25 = baseline_pipeline("bm25", texts)
    >>> bm25.scoring
    'BM25'
    >>> [hit["corpus_id"] for hit in bm25.search("cat", texts, k=2)]       # the shorter text first
    [2, 0]
    >>> baseline_pipeline("cosine", texts).scoring
    'tf.idf cosine'
    """
    if name not in BASELINE_MODELS:
        raise ValueError(f"name must be one of {', '.join(map(repr, BASELINE_MODELS))}; got {name!r}")
    from .pipeline import Pipeline

    needs_encoder = name.startswith("encoder")
    if needs_encoder and encoder is None:
        raise ValueError(f"the {name!r} baseline needs encoder= (a model folder or name, or a fitted encoder)")
    if name == "encoder":
        return Pipeline.from_encoder(encoder)
    if texts is None:
        raise ValueError(f"the {name!r} baseline needs texts= (the texts its term counts are fitted on)")
    counts = _term_counts(texts, analysis, language)
    if name == "bm25":
        from .linklearn import LearnedBM25

        return Pipeline(counts, LearnedBM25.from_params())
    if name == "cosine":
        from .linklearn import LinkLearn

        return Pipeline(counts, LinkLearn.from_baseline(max(len(counts.vocabulary_), 1)))
    from .film import SearchRule
    from .film.hybrid import check_input_weight

    lam = check_input_weight(lexical_weight, "lexical_weight")
    plain = Pipeline.from_encoder(encoder)
    if lam == 0.0:
        return plain        # nothing of BM25 in it: the encoder's cosine
    rule = SearchRule(input_weight=1.0, lexical_weight=lam, lexical_kind="bm25")
    return Pipeline(plain.vectorizer, plain.metric, search=rule, lexical=counts)


def _term_counts(texts, analysis=None, language=None):
    """The term counts ``learnsim evaluate``'s baselines take, fitted on ``texts``."""
    from .text import TextVectorizer, baseline_reading, check_analysis, check_language, detect_language

    texts = list(texts)
    stop_words, stem = baseline_reading(check_language(language) or detect_language(texts))
    vectorizer = TextVectorizer("tf", stop_words=stop_words, stem=stem, dtype=np.float64,
                                **check_analysis(analysis))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # texts without a term: they score 0, as in evaluate
        return vectorizer.fit(texts)

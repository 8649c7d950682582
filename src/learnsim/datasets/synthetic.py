"""A synthetic clustered-text generator: the default corpus of the demo and the fast tests."""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import Bunch

from learnsim._utils.validation import check_random_state


def _check_count(value, name, minimum=1):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {value}")
    return int(value)


def _check_fraction(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in [0, 1); got {value!r}")
    if not 0.0 <= float(value) < 1.0:
        raise ValueError(f"{name} must be in [0, 1); got {value}")
    return float(value)


def _zipf_weights(n, exponent, rng):
    weights = 1.0 / np.arange(1, n + 1) ** exponent
    return rng.permutation(weights / weights.sum())


# Fixed shape parameters of the generator; the public arguments set the amounts.
_TOPIC_ZIPF = 0.8        # skew of a topic's own vocabulary
_BACKGROUND_ZIPF = 1.1   # close to the Zipf law of natural text
_SECONDARY_TOPIC_SHARE = 0.3  # share of topic tokens drawn from the document's second topic
_BURST_LENGTH = (3, 7)   # boilerplate comes in runs of co-occurring words (inclusive range)
_STYLE_MIN_WORDS = 5


def make_clustered_corpus(n_clusters=20, docs_per_cluster=30, vocab_size=2000, doc_length=(40, 120),
                          topic_words=40, noise=0.5, n_styles=5, style_strength=0.3, random_state=0):
    """Generate a clustered text corpus whose clusters are hidden behind nuisance styles.

    Each document belongs to one cluster (topic) and has three kinds of tokens:

    * **topic** tokens, from its cluster's Zipf-skewed distribution over ``topic_words``
      words of its own; like a cross-posted message, each document also draws 30% of
      its topic tokens from one other, randomly chosen topic;
    * **background** tokens (a ``noise`` fraction), from a Zipf-distributed vocabulary
      shared by all clusters, like function words;
    * **style** tokens (a ``style_strength`` fraction): every document gets one of
      ``n_styles`` styles at random, independently of its topic - think of the
      boilerplate of a site or the habits of an author. A style is a group of words that
      appear together in bursts (runs of 3-7 tokens drawn from the group).

    Styles make documents of different topics look alike, and documents of one topic
    differ a lot along a few correlated directions (the style words). Plain tf-idf
    cosine is therefore clearly imperfect, while a metric learned from other clusters
    can discount the style directions. On the defaults, tf-idf cosine retrieval of
    held-out clusters reaches an 11-point average precision of about 0.4, and whitening
    an LSI space by the within-cluster scatter of the other clusters about 0.75.

    Parameters
    ----------
    n_clusters, docs_per_cluster : int, default=20, 30
    vocab_size : int, default=2000
        Total number of distinct words; must leave room for the topic and style words
        (``n_clusters * topic_words + n_styles * max(5, topic_words // 2)``) plus a
        background vocabulary when ``noise > 0``.
    doc_length : (int, int), default=(40, 120)
        Document lengths in tokens are uniform on this inclusive range.
    topic_words : int, default=40
        Words per topic.
    noise : float in [0, 1), default=0.5
        Fraction of each document's tokens drawn from the background vocabulary.
    n_styles : int, default=5
        Number of nuisance styles (0 is allowed with ``style_strength=0``).
    style_strength : float in [0, 1), default=0.3
        Fraction of each document's tokens drawn from its style;
        ``noise + style_strength`` must be < 1 so that some topic tokens remain.
    random_state : int, numpy Generator or None, default=0

    Returns
    -------
    Bunch
        ``data`` (list of str, words like ``"w0123"`` separated by spaces), ``target``
        (cluster of each document, int ndarray; documents are grouped by cluster),
        ``target_names``, ``style`` (style of each document, -1 when there are none),
        ``secondary_topic`` (the other topic each document touches, -1 with one cluster),
        ``topic_words_`` (list of each topic's words), ``style_words_`` (list of each
        style's words), ``background_words_``.

    Examples
    --------
    >>> from learnsim.datasets import make_clustered_corpus
    >>> corpus = make_clustered_corpus(n_clusters=3, docs_per_cluster=4, random_state=0)
    >>> len(corpus.data), corpus.target
    (12, array([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]))
    >>> corpus.data[0].split()[:3]                      # words are w0000, w0001, ...
    ['w...', 'w...', 'w...']
    """
    n_clusters = _check_count(n_clusters, "n_clusters")
    docs_per_cluster = _check_count(docs_per_cluster, "docs_per_cluster")
    vocab_size = _check_count(vocab_size, "vocab_size")
    topic_words = _check_count(topic_words, "topic_words")
    n_styles = _check_count(n_styles, "n_styles", minimum=0)
    noise = _check_fraction(noise, "noise")
    style_strength = _check_fraction(style_strength, "style_strength")
    if noise + style_strength >= 1.0:
        raise ValueError(f"noise + style_strength must be < 1 so that documents keep some topic tokens; "
                         f"got {noise} + {style_strength} = {noise + style_strength}")
    if style_strength > 0 and n_styles == 0:
        raise ValueError("style_strength > 0 needs n_styles >= 1 (or set style_strength=0)")
    try:
        low, high = (int(v) if isinstance(v, numbers.Integral) and not isinstance(v, bool) else None
                     for v in doc_length)
    except (TypeError, ValueError):
        raise TypeError(f"doc_length must be a pair of integers (min, max); got {doc_length!r}") from None
    if low is None or high is None:
        raise TypeError(f"doc_length must be a pair of integers (min, max); got {doc_length!r}")
    if not 1 <= low <= high:
        raise ValueError(f"doc_length must satisfy 1 <= min <= max; got {doc_length!r}")

    style_size = max(_STYLE_MIN_WORDS, topic_words // 2) if n_styles else 0
    n_reserved = n_clusters * topic_words + n_styles * style_size
    n_background = vocab_size - n_reserved
    min_background = topic_words if noise > 0 else 0
    if n_background < min_background:
        raise ValueError(
            f"vocab_size={vocab_size} is too small: {n_clusters} topics x {topic_words} words + "
            f"{n_styles} styles x {style_size} words = {n_reserved} reserved words, and the "
            f"background vocabulary needs at least {min_background}; use vocab_size >= "
            f"{n_reserved + min_background}")
    rng = check_random_state(random_state)

    width = len(str(vocab_size - 1))
    words = np.array([f"w{i:0{width}d}" for i in range(vocab_size)])
    word_order = rng.permutation(vocab_size)  # so word ids say nothing about their role
    topic_ids = word_order[: n_clusters * topic_words].reshape(n_clusters, topic_words)
    style_ids = word_order[n_clusters * topic_words: n_reserved].reshape(n_styles, style_size)
    background_ids = word_order[n_reserved:]

    topic_cdf = np.cumsum([_zipf_weights(topic_words, _TOPIC_ZIPF, rng) for _ in range(n_clusters)], axis=1)
    style_probs = [_zipf_weights(style_size, _TOPIC_ZIPF, rng) for _ in range(n_styles)]
    background_probs = _zipf_weights(len(background_ids), _BACKGROUND_ZIPF, rng) if len(background_ids) else None

    n_docs = n_clusters * docs_per_cluster
    target = np.repeat(np.arange(n_clusters), docs_per_cluster)
    styles = rng.integers(n_styles, size=n_docs) if n_styles else np.full(n_docs, -1)
    lengths = rng.integers(low, high + 1, size=n_docs)
    secondary_topics = np.full(n_docs, -1, dtype=np.int64)

    data = []
    for doc, (topic, style, length) in enumerate(zip(target, styles, lengths)):
        n_noise = int(round(noise * length))
        n_style = int(round(style_strength * length))
        n_topic = max(int(length) - n_noise - n_style, 0)
        # Like a cross-posted message, a document also touches one other topic, so that
        # clusters overlap and even a perfect nuisance filter leaves retrieval imperfect.
        token_topic = np.full(n_topic, topic)
        if n_clusters > 1:
            secondary_topics[doc] = (topic + rng.integers(1, n_clusters)) % n_clusters
            token_topic[rng.random(n_topic) < _SECONDARY_TOPIC_SHARE] = secondary_topics[doc]
        rank = (rng.random(n_topic)[:, None] > topic_cdf[token_topic]).sum(axis=1)
        segments = [[w] for w in topic_ids[token_topic, np.minimum(rank, topic_words - 1)]]
        if n_noise:
            segments.extend([w] for w in rng.choice(background_ids, size=n_noise, p=background_probs))
        if n_style:
            style_tokens = rng.choice(style_ids[style], size=n_style, p=style_probs[style])
            start = 0
            while start < n_style:
                burst = int(rng.integers(_BURST_LENGTH[0], _BURST_LENGTH[1] + 1))
                segments.append(list(style_tokens[start:start + burst]))
                start += burst
        order = rng.permutation(len(segments))
        data.append(" ".join(words[w] for i in order for w in segments[i]))

    return Bunch(
        data=data,
        target=target.astype(np.int64),
        target_names=[f"topic{k:0{len(str(n_clusters - 1))}d}" for k in range(n_clusters)],
        style=styles.astype(np.int64),
        secondary_topic=secondary_topics,
        topic_words_=[list(words[row]) for row in topic_ids],
        style_words_=[list(words[row]) for row in style_ids],
        background_words_=list(words[background_ids]),
    )

"""The WebKB corpus as paper 004 (Schultz & Joachims 2003) uses it: its three notions of
distance as relative-comparison triplets (:func:`webkb_triplets`, with the "seven universities"
of :func:`webkb_university_labels`) and its four kinds of page features (:func:`webkb_features`).

The corpus loader, :func:`load_webkb`, and its URL helpers live in
:mod:`learnsim.datasets.webkb` (see there for which pages the paper used and how a page's
university is found); they are re-exported here, so ``from learnsim.webkb import load_webkb``
keeps working. This module imports the datasets package, never the other way round.

References
----------
.. [1] Schultz, M. and Joachims, T. (2004). Learning a Distance Metric from Relative
   Comparisons. In Advances in Neural Information Processing Systems 16 (NIPS 2003), MIT Press
   (paper 004 of ../shared/papers).
"""
from __future__ import annotations

import numbers
from collections import Counter

import numpy as np

from learnsim._utils.validation import check_indices
from learnsim.datasets._base import _object_array
from learnsim.datasets.webkb import (WEBKB_PAPER_TOPICS, WEBKB_TOPICS, WEBKB_UNIVERSITIES, WebKBCorpus,
                                     load_webkb, normalize_url, url_domain, url_from_filename, url_host)
from learnsim.supervision import sample_label_triplets
from learnsim.text import DEFAULT_TOKEN_PATTERN, TextVectorizer

__all__ = [
    "WEBKB_DISTANCES",
    "WEBKB_FEATURE_KINDS",
    "WEBKB_PAPER_TOPICS",
    "WEBKB_TOPICS",
    "WEBKB_UNIVERSITIES",
    "WebKBCorpus",
    "load_webkb",
    "normalize_url",
    "url_domain",
    "url_from_filename",
    "url_host",
    "webkb_documents",
    "webkb_features",
    "webkb_triplets",
    "webkb_university_labels",
]


# ----------------------------------------------------------- paper 004: supervision, features

#: The three notions of distance of Schultz & Joachims (2003), sec. 5.
WEBKB_DISTANCES = ("university", "topic", "topic+facultystudent")
#: The four kinds of features of :func:`webkb_features`.
WEBKB_FEATURE_KINDS = ("binary", "tfidf", "binary-stemmed", "tfidf-stemmed")


def _check_corpus(corpus, keys):
    missing = [key for key in keys if key not in getattr(corpus, "keys", lambda: ())()]
    if missing:
        raise TypeError(f"corpus must be the Bunch returned by load_webkb; it has no {missing}")
    return len(corpus["topics"])


def webkb_university_labels(corpus, n_universities=7):
    """The university of each page for the University distance, ``None`` outside the largest ones.

    A page's university is the registered domain of its URL (``corpus.url_universities``:
    ``www.cs.cornell.edu`` -> ``cornell.edu``), not its archive folder, so that the pages in
    ``misc`` count for their own universities. Only the ``n_universities`` domains with most
    pages in ``corpus`` keep a label (ties go to the alphabetically first domain).

    Parameters
    ----------
    corpus : WebKBCorpus
    n_universities : int >= 2, default=7

    Returns
    -------
    ndarray of object, shape (n_pages,)
        The domain, or ``None`` for a page outside the ``n_universities`` largest.

    Examples
    --------
    A corpus of six pages made by hand (:func:`load_webkb` reads the real one), with the fields
    this function reads:

    >>> import numpy as np
    >>> from learnsim.reproduce.webkb import WebKBCorpus, webkb_university_labels
    >>> corpus = WebKBCorpus(
    ...     texts=["CS 101 syllabus and homework", "CS 202 lectures and homework", "Prof. Ann Lee, faculty",
    ...            "Bob Stone's student home page", "Databases course, homework 3", "Carol Diaz, student"],
    ...     topics=np.array(["course", "course", "faculty", "student", "course", "student"], dtype=object),
    ...     urls=["http://www.cs.cornell.edu/cs101", "http://www.cs.cornell.edu/cs202", "http://www.cs.wisc.edu/~lee",
    ...           "http://www.cs.wisc.edu/~bob", "http://cs.nyu.edu/db", "http://www.cs.utexas.edu/~carol"],
    ...     hrefs=[("http://www.cs.cornell.edu/cs202",), (), ("http://www.cs.wisc.edu/~bob",), (), (), ()],
    ...     url_universities=np.array(["cornell.edu", "cornell.edu", "wisc.edu", "wisc.edu", "nyu.edu",
    ...                                "utexas.edu"], dtype=object))
    >>> webkb_university_labels(corpus, n_universities=2).tolist()   # cornell.edu and wisc.edu have 2 pages
    ['cornell.edu', 'cornell.edu', 'wisc.edu', 'wisc.edu', None, None]
    """
    n_pages = _check_corpus(corpus, ("topics", "url_universities"))
    if (isinstance(n_universities, (bool, np.bool_)) or not isinstance(n_universities, numbers.Integral)
            or n_universities < 2):
        raise ValueError(f"n_universities must be an int >= 2 (a University triplet needs two "
                         f"universities); got {n_universities!r}")
    domains = np.asarray(corpus["url_universities"], dtype=object)
    if domains.shape != (n_pages,):
        raise ValueError(f"corpus.url_universities has {domains.size} entries for {n_pages} pages")
    counts = Counter(d for d in domains if d is not None)
    if len(counts) < n_universities:
        raise ValueError(f"corpus has pages of {len(counts)} universities; fewer than n_universities={n_universities}")
    largest = {d for d, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n_universities]}
    return _object_array([d if d in largest else None for d in domains])


def _topic_facultystudent_rule(label_i, label_j, label_k):
    same_topic = (label_i == label_j) & (label_j != label_k)
    faculty_student = ((label_i == "faculty") & (label_j == "student")
                       & ((label_k == "course") | (label_k == "project")))
    return same_topic | faculty_student


def webkb_triplets(corpus, distance, n_triplets, *, indices=None, random_state=None, n_universities=7):
    """Relative comparisons for one of the three WebKB distances of Schultz & Joachims (2003, sec. 5).

    Three distinct pages are drawn uniformly at random (from ``indices``) and ``(i, j, k)``,
    "i is closer to j than to k", is kept when:

    - ``"university"``: i and j are from the same university and k from another one, among the
      pages of the ``n_universities`` largest universities (:func:`webkb_university_labels`);
    - ``"topic"``: i and j have the same topic and k another one;
    - ``"topic+facultystudent"``: the topic rule holds, or i is a faculty page, j a student
      page and k a course or project page.

    See :func:`learnsim.supervision.sample_label_triplets` (no triplet is repeated).

    Parameters
    ----------
    corpus : WebKBCorpus
        From :func:`load_webkb` (the paper's pages: ``subset="paper"``).
    distance : {"university", "topic", "topic+facultystudent"}
    n_triplets : int >= 1
    indices : array-like of int, optional
        Draw only from these pages (e.g. the training or the test part of a split); default all.
    random_state : None, int or numpy Generator
    n_universities : int, default=7
        For ``"university"``: how many of the largest universities take part.

    Returns
    -------
    Triplets
        Indices into the whole ``corpus`` (the rows of :func:`webkb_features`' matrix), also
        when ``indices`` restricts the draw.

    Notes
    -----
    Which pages count as one university decides how hard the University triplets are. With
    the paper subset, a 70/30 page split (seed 0) and 50,000 test triplets, the Euclidean
    distance on L2-normalised stemmed tf.idf / binary features satisfies 51.9% / 52.4% of
    them when the archive folders are the universities (``misc`` as one: its pages come from
    115 domains, so "same university" is noise), 71.2% / 64.0% with the four folders
    alone, and 73.5% / 65.3% with the seven largest URL domains (the default; the paper's
    best static distances: 80.72% / 67.88%).

    Examples
    --------
    A corpus of six pages made by hand (:func:`load_webkb` reads the real one), with the fields
    this function reads:

    >>> import numpy as np
    >>> from learnsim.reproduce.webkb import WebKBCorpus, webkb_triplets
    >>> corpus = WebKBCorpus(
    ...     texts=["CS 101 syllabus and homework", "CS 202 lectures and homework", "Prof. Ann Lee, faculty",
    ...            "Bob Stone's student home page", "Databases course, homework 3", "Carol Diaz, student"],
    ...     topics=np.array(["course", "course", "faculty", "student", "course", "student"], dtype=object),
    ...     urls=["http://www.cs.cornell.edu/cs101", "http://www.cs.cornell.edu/cs202", "http://www.cs.wisc.edu/~lee",
    ...           "http://www.cs.wisc.edu/~bob", "http://cs.nyu.edu/db", "http://www.cs.utexas.edu/~carol"],
    ...     hrefs=[("http://www.cs.cornell.edu/cs202",), (), ("http://www.cs.wisc.edu/~bob",), (), (), ()],
    ...     url_universities=np.array(["cornell.edu", "cornell.edu", "wisc.edu", "wisc.edu", "nyu.edu",
    ...                                "utexas.edu"], dtype=object))
    >>> triplets = webkb_triplets(corpus, "topic", 4, random_state=0)
    >>> triplets.n_triplets
    4
    >>> topics = corpus.topics                    # i and j share a topic, k has another one
    >>> bool(np.all((topics[triplets.anchors] == topics[triplets.positives])
    ...             & (topics[triplets.anchors] != topics[triplets.negatives])))
    True
    >>> webkb_triplets(corpus, "university", 2, n_universities=2, random_state=0).n_triplets
    2
    """
    n_pages = _check_corpus(corpus, ("topics", "url_universities"))
    if not isinstance(distance, str) or distance.lower() not in WEBKB_DISTANCES:
        raise ValueError(f"distance must be one of {WEBKB_DISTANCES}; got {distance!r}")
    distance = distance.lower()
    if indices is not None:
        indices = np.asarray(indices)
        if indices.ndim != 1 or indices.size == 0:
            raise ValueError(f"indices must be a non-empty 1-D array of page indices; got shape {indices.shape}")
    if distance == "university":
        labels, rule = webkb_university_labels(corpus, n_universities), None
    else:
        labels = np.asarray(corpus["topics"], dtype=object)
        rule = _topic_facultystudent_rule if distance == "topic+facultystudent" else None
    if labels.shape != (n_pages,):
        raise ValueError(f"corpus has {labels.size} labels for {n_pages} pages")
    return sample_label_triplets(labels, n_triplets, rule=rule, candidates=indices, random_state=random_state)


def webkb_documents(corpus, with_urls=False):
    """The text of each page, optionally followed by its URL and the URLs it links to.

    With ``with_urls=True`` the tokens of a page's own URL and of its outgoing ``<a href>``
    targets (``corpus.hrefs``) become terms too (``http://www.cs.cornell.edu/~bob/`` gives
    ``http www cs cornell edu bob``): see :func:`webkb_features` for why.

    Examples
    --------
    A corpus of six pages made by hand (:func:`load_webkb` reads the real one), with the fields
    this function reads:

    >>> import numpy as np
    >>> from learnsim.reproduce.webkb import WebKBCorpus, webkb_documents
    >>> corpus = WebKBCorpus(
    ...     texts=["CS 101 syllabus and homework", "CS 202 lectures and homework", "Prof. Ann Lee, faculty",
    ...            "Bob Stone's student home page", "Databases course, homework 3", "Carol Diaz, student"],
    ...     topics=np.array(["course", "course", "faculty", "student", "course", "student"], dtype=object),
    ...     urls=["http://www.cs.cornell.edu/cs101", "http://www.cs.cornell.edu/cs202", "http://www.cs.wisc.edu/~lee",
    ...           "http://www.cs.wisc.edu/~bob", "http://cs.nyu.edu/db", "http://www.cs.utexas.edu/~carol"],
    ...     hrefs=[("http://www.cs.cornell.edu/cs202",), (), ("http://www.cs.wisc.edu/~bob",), (), (), ()],
    ...     url_universities=np.array(["cornell.edu", "cornell.edu", "wisc.edu", "wisc.edu", "nyu.edu",
    ...                                "utexas.edu"], dtype=object))
    >>> webkb_documents(corpus)[0]
    'CS 101 syllabus and homework'
    >>> webkb_documents(corpus, with_urls=True)[0]    # its URL, then the one it links to
    'CS 101 syllabus and homework http://www.cs.cornell.edu/cs101 http://www.cs.cornell.edu/cs202'
    """
    _check_corpus(corpus, ("texts", "urls", "hrefs"))
    if not with_urls:
        return list(corpus["texts"])
    return [" ".join((text, url or "", *hrefs))
            for text, url, hrefs in zip(corpus["texts"], corpus["urls"], corpus["hrefs"])]


def webkb_features(corpus, kind="binary", *, with_urls=False, norm="auto", fit_indices=None,
                   token_pattern=DEFAULT_TOKEN_PATTERN, dtype=np.float32):
    """Feature vectors of the WebKB pages, as in Schultz & Joachims (2003, sec. 5).

    Parameters
    ----------
    corpus : WebKBCorpus
    kind : {"binary", "tfidf", "binary-stemmed", "tfidf-stemmed"}, default="binary"
        ``"binary"``: term presence (0/1) without stemming or stop word removal, the input of
        the paper's learned metric. ``"tfidf"``: tf.idf (see :mod:`learnsim.text`). The
        ``-stemmed`` kinds add Porter stemming (``pip install learnsim[stem]``) and English
        stop word removal, as the paper's best static baselines.
    with_urls : bool, default=False
        Add the tokens of the page's URL and of its links' URLs (:func:`webkb_documents`).
    norm : {"auto", None, "l2"}, default="auto"
        L2-normalise the rows: ``"auto"`` does for the tf.idf kinds and not for the binary
        ones (the learned metric weighs raw 0/1 features).
    fit_indices : array-like of int, optional
        Pages the vocabulary (and idf) is fitted on; default all pages, as the paper's feature
        count. Rows for all pages are returned either way.
    token_pattern : str
        Token regular expression (default: words of two or more word characters).
    dtype : float dtype, default=np.float32

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_pages, n_terms)
    vectorizer : learnsim.text.TextVectorizer
        The fitted vectorizer (``vectorizer.terms_`` names the columns).

    Notes
    -----
    The paper counts 63,949 binary features without stemming over its 4,183 pages. On the
    paper subset (4,184 pages) ``kind="binary"`` gives 48,281 terms from the page text,
    66,151 with ``with_urls=True``, and 48,005 / 63,797 (0.2% from the paper's count) with
    ``token_pattern=r"[A-Za-z0-9]+"``. The near match is weak evidence: the twenty-odd
    tokenisations tried (text, text and URLs, raw HTML; several token patterns; with and
    without lower-casing) span 40,000 to 250,000 terms, and with the URL tokens the static
    tf.idf distance already satisfies 97% of the University triplets, far above the paper's
    80.72%, so the default stays the page text.

    Examples
    --------
    A corpus of six pages made by hand (:func:`load_webkb` reads the real one), with the fields
    this function reads:

    >>> import numpy as np
    >>> from learnsim.reproduce.webkb import WebKBCorpus, webkb_features
    >>> corpus = WebKBCorpus(
    ...     texts=["CS 101 syllabus and homework", "CS 202 lectures and homework", "Prof. Ann Lee, faculty",
    ...            "Bob Stone's student home page", "Databases course, homework 3", "Carol Diaz, student"],
    ...     topics=np.array(["course", "course", "faculty", "student", "course", "student"], dtype=object),
    ...     urls=["http://www.cs.cornell.edu/cs101", "http://www.cs.cornell.edu/cs202", "http://www.cs.wisc.edu/~lee",
    ...           "http://www.cs.wisc.edu/~bob", "http://cs.nyu.edu/db", "http://www.cs.utexas.edu/~carol"],
    ...     hrefs=[("http://www.cs.cornell.edu/cs202",), (), ("http://www.cs.wisc.edu/~bob",), (), (), ()],
    ...     url_universities=np.array(["cornell.edu", "cornell.edu", "wisc.edu", "wisc.edu", "nyu.edu",
    ...                                "utexas.edu"], dtype=object))
    >>> X, vectorizer = webkb_features(corpus)          # binary: 0/1, not normalised
    >>> X.shape, sorted(set(X.data.tolist()))
    ((6, 20), [1.0])
    >>> list(vectorizer.terms_[:4])
    ['101', '202', 'and', 'ann']
    >>> X, _ = webkb_features(corpus, "tfidf")          # tf.idf rows have unit length
    >>> np.round(np.sqrt(np.asarray(X.multiply(X).sum(axis=1))), 3).ravel().tolist()
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    """
    if kind not in WEBKB_FEATURE_KINDS:
        raise ValueError(f"kind must be one of {WEBKB_FEATURE_KINDS}; got {kind!r}")
    if norm not in ("auto", None, "l2"):
        raise ValueError(f"norm must be 'auto', None or 'l2'; got {norm!r}")
    docs = webkb_documents(corpus, with_urls=with_urls)
    stemmed = kind.endswith("-stemmed")
    weighting = kind.split("-")[0]
    if norm == "auto":
        norm = "l2" if weighting == "tfidf" else None
    vectorizer = TextVectorizer(weighting, token_pattern=token_pattern,
                                stop_words="english" if stemmed else None,
                                stem="porter" if stemmed else None, norm=norm, dtype=dtype)
    if fit_indices is None:
        return vectorizer.fit_transform(docs).tocsr(), vectorizer
    fit_indices = np.asarray(fit_indices)
    if fit_indices.ndim != 1:
        raise ValueError(f"fit_indices must be a 1-D array of page indices; got shape {fit_indices.shape}")
    fit_indices = check_indices(fit_indices, len(docs), name="fit_indices")
    vectorizer.fit([docs[i] for i in fit_indices])
    return vectorizer.transform(docs).tocsr(), vectorizer

"""LinkLearn's fitting recipe: paper 002's eq. (5) (:class:`LinkLearn`) or :class:`LearnedBM25`
from the hyperlinks among documents, checked against its baseline on held-out documents
(``learnsim fit --method linklearn``, :func:`learnsim.fit` with ``links=``).

:mod:`learnsim.fitting` checks the links and the options and calls :func:`fit_linklearn`; it
returns a :class:`learnsim._fit_common.Fitted` (the report, the parts and the timings), which
``fitting`` wraps into its :class:`learnsim.fitting.FitResult`.
"""
from __future__ import annotations

import time
import warnings

import numpy as np

from .._fit_common import Fitted, option_name, quiet as _quiet, reading, report_dict as _report
from .._utils.callers import warn_outside
from .._utils.progress import stage

__all__ = ["DEFAULT_LINKLEARN_RATE", "DEFAULT_LINKLEARN_VALIDATION_FRACTION", "LINKLEARN_VARIANTS",
           "DEFAULT_LINKLEARN_VARIANT", "VARIANT_ONLY_OPTIONS", "check_variant", "linklearn_stemming", "fit_linklearn"]

# LinkLearn's settings when not given: the learning rate chosen on Wikispeedia's validation third
# (docs/reproductions/linklearn.md) and the share of documents held out for early stopping.
DEFAULT_LINKLEARN_RATE = 0.03
DEFAULT_LINKLEARN_VALIDATION_FRACTION = 0.25
LINKLEARN_VARIANTS = ("paper", "bm25")
#: The variant fitted when none is named: paper 002's eq. (5), the in-domain model.
DEFAULT_LINKLEARN_VARIANT = "paper"
#: The options that apply to one variant only, declared once as scikit-learn declares its
#: parameter constraints: {option: (the variant it applies to, what it sets there, why the other
#: does without)}. fit() and ``learnsim fit`` (which builds its FitOptions from its flags) both
#: meet them in :func:`check_variant`.
VARIANT_ONLY_OPTIONS = {
    "learning_rate": ("paper", "LinkLearn's SGD", "the bm25 variant searches its five parameters directly"),
}


def check_variant(o, variant=None, flags=None):
    """The variant of a linklearn fit (``variant``, else ``o.variant``, else
    DEFAULT_LINKLEARN_VARIANT), checked: one of LINKLEARN_VARIANTS, and none of the options of ``o``
    that apply to another variant only (VARIANT_ONLY_OPTIONS) given. A ValueError names the option
    as the caller does (``flags``: ``{option: flag}`` of the command line).

    Examples
    --------
    >>> from learnsim.fitting import FitOptions
    >>> check_variant(FitOptions())
    'paper'
    >>> check_variant(FitOptions(variant="bm25", learning_rate=0.1))
    Traceback (most recent call last):
    ...
    ValueError: learning_rate applies to variant 'paper' (LinkLearn's SGD) only; the bm25 variant searches ...
    """
    variant = variant or o.variant or DEFAULT_LINKLEARN_VARIANT
    if variant not in LINKLEARN_VARIANTS:
        raise ValueError(f"{option_name(flags, 'variant')} must be one of {', '.join(LINKLEARN_VARIANTS)}; got "
                         f"{variant!r}")
    for name, (owner, what, why) in VARIANT_ONLY_OPTIONS.items():
        if variant != owner and getattr(o, name) is not None:
            named = f"{flags['variant']} {owner}" if flags and "variant" in flags else f"variant {owner!r}"
            raise ValueError(f"{option_name(flags, name)} applies to {named} ({what}) only; {why}")
    return variant


def linklearn_stemming(stem, note=_quiet):
    """"porter" (paper 002's stemming) unless ``stem`` is False or PyStemmer is missing (then a
    note says the fit is unstemmed); ``stem=True`` insists on it (an error without PyStemmer)."""
    if stem is False:
        return None
    if stem is True:
        return "porter"
    try:
        import Stemmer  # noqa: F401  (PyStemmer)
    except ImportError:
        note("PyStemmer is not installed: fitting without Porter stemming (pip install learnsim[stem] "
             "for the paper's stemming)")
        return None
    return "porter"


def _warn_empty(n_empty, n_documents, n_training):
    """One warning for the documents left without a vocabulary term (stop words, terms of a single
    document dropped), of all the documents and of the training ones (left out with their links)."""
    if not n_empty:
        return
    said = (f"{n_empty} of {n_documents} documents have no vocabulary term after tokenisation and vocabulary "
            "filtering; they get zero rows")
    if n_training:
        said += f", and the {n_training} among the training documents are left out with their links"
    warn_outside(said, UserWarning)


def fit_linklearn(o, texts, links, variant, summary, note=_quiet):
    """LinkLearn (``variant`` "paper", paper 002's eq. 5) or LearnedBM25 ("bm25") from the
    ``links`` (:class:`learnsim.supervision.Links`) among ``texts``: term counts, a held-out
    ``o.validation_fraction`` of the documents with their links for early stopping (paper) or the
    validation AvgP (bm25) and the check against the baseline.

    Returns a :class:`learnsim._fit_common.Fitted` (:func:`learnsim.fitting.fit_linklearn`: a
    FitResult); its details: settings (LinkLearn's or LearnedBM25's).
    """
    import scipy.sparse as sp

    from .._utils.progress import _default_enabled
    from ..supervision import Links, split_links
    from ..text import TextVectorizer, find_empty_rows
    from ._linklearn import LinkLearn, linked_pairs
    from ._weighting import LearnedBM25

    # paper 002's English stop list and Porter stems, unless the texts are said to be in another
    # language (then only where asked for, by that language's rules): English rules cut French
    # "nationales" to "national"
    english = o.language is None or o.language.lower().replace("_", "-").split("-")[0] in ("en", "eng")
    stop_words, stem = reading(o, texts, stem=linklearn_stemming(o.stem if english or o.stem is not None else False,
                                                                 note) is not None)
    vectorizer = TextVectorizer("tf", stop_words=stop_words or ("english" if english else None), stem=stem,
                                min_df=2, dtype=np.float64, **o.analysis)
    start = time.perf_counter()
    with warnings.catch_warnings():
        # the vectoriser's "N of M training documents are empty" counts every document as its
        # training one; the one warning below says it with what becomes of those LinkLearn learns from
        warnings.filterwarnings("ignore", message=r"\d+ of \d+ training documents are empty after tokenisation")
        X = sp.csr_matrix(vectorizer.fit_transform(texts), dtype=np.float64)
    vec_seconds = time.perf_counter() - start
    fraction = o.validation_fraction or DEFAULT_LINKLEARN_VALIDATION_FRACTION
    try:
        (train, L_train), (valid, L_valid) = split_links(links, fractions=(1.0 - fraction, fraction),
                                                         random_state=o.random_state)
    except ValueError as exc:
        raise ValueError(f"cannot hold out {fraction:g} of the documents for early stopping: {exc}") from None
    X_train = X[train]
    rows = np.asarray(train)            # the texts X_train's rows are
    empty = find_empty_rows(X_train)
    _warn_empty(find_empty_rows(X).size, X.shape[0], empty.size)
    if empty.size:
        keep = np.setdiff1d(np.arange(X_train.shape[0]), empty)
        X_train, L_train = X_train[keep], Links(L_train.adjacency[keep][:, keep])
        rows = rows[keep]
    if variant == "paper":
        settings = {"learning_rate": o.learning_rate or DEFAULT_LINKLEARN_RATE}
        if o.max_iter is not None:
            settings["max_iter"] = o.max_iter
        metric = LinkLearn(**settings, baseline_holdout=o.baseline_holdout, random_state=o.random_state,
                           verbose=_default_enabled())
        title = "LinkLearn: learning the term weights"
    else:
        settings = {} if o.max_iter is None else {"max_evaluations": max(1, o.max_iter)}
        metric = LearnedBM25(**settings, baseline_holdout=o.baseline_holdout, random_state=o.random_state)
        title = "LearnedBM25: searching the five weighting parameters"
    start = time.perf_counter()
    try:
        with stage(title):
            metric.fit(X_train, L_train, validation=(X[valid], L_valid))
    except ValueError as exc:
        raise ValueError(f"{type(metric).__name__} cannot learn from these links: {exc}") from None
    metric_seconds = time.perf_counter() - start
    report = metric.baseline_gain_
    summary.update(documents=len(texts), links=linked_pairs(links), features=int(X.shape[1]),
                   train_documents=int(X_train.shape[0]), train_links=linked_pairs(L_train),
                   validation_documents=int(valid.size), validation_links=linked_pairs(L_valid), variant=variant)
    if variant == "paper":
        curve = metric.validation_curve_
        summary.update(learning_rate=settings["learning_rate"], n_iter=metric.n_iter_, best_iter=metric.best_iter_,
                       validation_ap=float(np.max(curve["ap"])) if curve is not None else None)
    else:
        summary.update(weighting=dict(metric.params_), n_evaluations=metric.n_evaluations_,
                       validation_ap=metric.validation_ap_, shrinkage=metric.shrinkage_,
                       shrinkage_path=[[float(v) for v in row] for row in metric.shrinkage_path_])
    summary.update(baseline_gain=_report(report))
    held = getattr(metric, "held_out_", None)
    # the documents its own check held out, as text indices, with every link they have (to held-out
    # documents, which no training link names, and to the others), and the documents the training
    # links name; and every link, the judgements the strongest baseline is chosen on
    held_out = None
    if held is not None:
        docs = rows[held[0]]
        trained = rows[np.unique(np.asarray(metric_training_links(L_train, held[0])))]
        every = links.symmetric().adjacency.tocsr()
        held_out = (docs, every[docs], trained, every)
    return Fitted(summary, {"vectorizer": vectorizer, "metric": metric}, vec_seconds, metric_seconds,
                   settings=settings, held_out=held_out)


def metric_training_links(L_train, held_rows):
    """The rows of the training part (``X_train``) that the model's training links name: those of
    the part it learned on, which is ``L_train`` without the rows its own check held out."""
    A = L_train.symmetric().adjacency.tocsr()
    keep = np.setdiff1d(np.arange(A.shape[0]), held_rows)
    degrees = np.diff(A[keep][:, keep].indptr)
    return keep[degrees > 0]

"""The options of a fit: :class:`FitOptions`, what :func:`learnsim.fitting.fit`'s keywords set and
what ``learnsim fit`` builds from its flags, and the checking of those keywords (which method each
option applies to, its type and range, the aliases).

The recipes of the methods read a FitOptions (``o``); :mod:`learnsim.fitting`, which calls them,
re-exports :class:`FitOptions` and :data:`METHODS`, their documented home.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field

from ._defaults import DEFAULT_NORM
from ._fit_common import MATCHER_CHOICES
from ._fit_common import check_choice as _check_choice, check_float as _check_float, check_int as _check_int
from ._fit_common import check_stem_language as _check_stem_language
from .baseline import DEFAULT_HOLDOUT
from .linklearn.recipe import LINKLEARN_VARIANTS

__all__ = ["FitOptions", "METHODS", "WEIGHTINGS", "check_options"]

#: The methods :func:`learnsim.fitting.fit_parts` (and ``learnsim fit --method``) fit.
METHODS = ("mcd", "film", "linklearn", "relative", "adapter")

# The options of fit (and fit_parts) and the methods each applies to (learnsim fit's method-specific flags).
_ALL = frozenset(METHODS)
_OPTION_METHODS = {
    "weighting": {"mcd", "film", "relative"}, "norm": {"mcd", "film"}, "lsi": {"mcd", "film"},
    "stop_words": _ALL - {"adapter"}, "stem": _ALL - {"adapter"},
    "language": _ALL, "analyzer": _ALL, "cjk_unigrams": _ALL, "unicode_words": _ALL,
    "paper": {"mcd"}, "n_basis": {"mcd"}, "shrinkage": {"mcd"}, "complement_weight": {"mcd"},
    "n_components": {"film"}, "svd_rank": {"film"}, "max_iter": {"film", "linklearn"},
    "learning_rate": {"linklearn"}, "validation_fraction": {"linklearn", "film", "relative", "adapter"},
    "baseline_holdout": {"mcd", "film", "linklearn", "relative", "adapter"}, "variant": {"linklearn"}, "matcher": {"film"},
    "rerank": {"film"}, "encoder": {"mcd", "film", "adapter"}, "prior": {"relative"},
    "normalize": {"relative"}, "n_documents": {"relative"},
}
# the options that configure the term vectoriser, which a pre-trained encoder replaces
_TERM_VECTOR_OPTIONS = ("weighting", "lsi", "norm")
_ALIASES = {"dimensions": "n_components"}
WEIGHTINGS = ("tfidf", "bm25", "tf", "binary")


@dataclass
class FitOptions:
    """The options of a fit under their library names, checked: what
    :func:`learnsim.fitting.fit`'s keywords set and what the command line builds from its flags
    (``learnsim fit``). The defaults are the library's: each method's own where a field is None.

    Examples
    --------
    >>> FitOptions(weighting="bm25", random_state=3).norm
    'l2'
    """

    random_state: int = 0
    weighting: str | None = None
    norm: str | None = DEFAULT_NORM
    stop_words: str | None = None
    stem: bool | None = None
    lsi: int | float | None = None
    paper: bool = False
    #: MinimumClusterDistortion's settings given (n_basis, shrinkage, complement_weight); the
    #: others are "auto"
    mcd: dict = field(default_factory=dict)
    n_components: int | None = None
    svd_rank: int | None = None
    max_iter: int | None = None
    learning_rate: float | None = None
    validation_fraction: float | None = None
    baseline_holdout: float | None = DEFAULT_HOLDOUT
    #: relative: what the weights are shrunk towards, "zero" (the paper's) or "one" (W = 1)
    prior: str | None = None
    #: relative: True scores by the weighted cosine (unit rows of the learned map), not eq. (2)'s distance
    normalize: bool = False
    #: relative: the texts[:n_documents] are the collection (vocabulary and idf), the rest anchors
    #: only (the queries of click comparisons); None: all texts are the collection
    n_documents: int | None = None
    variant: str | None = None
    matcher: str | None = None
    #: learned re-ranking of search (FILM fitted on labelled pairs): True tries it and keeps it
    #: where held-out duplicate queries show a gain; False leaves search at its first stage
    rerank: bool = True
    #: a fitted pre-trained sentence encoder (``encoder=``, resolved by
    #: :func:`learnsim.text.encoders.load_encoder`): the vectoriser whose vectors the metric
    #: learns on, in place of the term vectors
    encoder: object = None
    #: how text is cut into terms (learnsim.text.Tokenizer): character bigrams over Chinese,
    #: Japanese, Korean and Thai ("cjk"), or a morphological analyser ("sudachi", "fugashi",
    #: "jieba"); every vectoriser of the fit and its baselines take it
    analyzer: str = "cjk"
    cjk_unigrams: bool = False
    #: words by Unicode's rules (combining marks kept in their words, NFC): Tokenizer's unicode_words
    unicode_words: bool = True
    #: the texts' language code as given (``language=``, ``--language``), or None: one other than
    #: English turns linklearn's English stop list and Porter stems off (linklearn.recipe)
    language: str | None = None
    #: mcd from clusters: the weight of each cluster code 0..K-1 (a tuple), from a
    #: Clusters(labels, weights=...) given to fit (learnsim._cluster_weights); None: all alike
    cluster_weights: tuple | None = None

    @property
    def analysis(self):
        """The analysis keywords every vectoriser of the fit takes (:func:`learnsim.text.check_analysis`)."""
        return {"analyzer": self.analyzer, "cjk_unigrams": bool(self.cjk_unigrams),
                "unicode_words": bool(self.unicode_words)}

    @property
    def pairs_validation_fraction(self):
        """The share held out to choose the search rules of a fit on pairs or judgements (film,
        mcd, adapter) and FILM's graded rules: ``validation_fraction``, else
        :data:`learnsim.film.recipe.DEFAULT_PAIRS_VALIDATION_FRACTION` (one default for every fit
        that reads it)."""
        from .film.recipe import DEFAULT_PAIRS_VALIDATION_FRACTION

        return self.validation_fraction or DEFAULT_PAIRS_VALIDATION_FRACTION

    @classmethod
    def from_keywords(cls, method, options, random_state=0):
        """The options of :func:`learnsim.fitting.fit`'s ``**options`` for ``method``, checked
        (an unknown option is a TypeError, a bad value or another method's option a ValueError)."""
        return check_options(method, options, random_state)


def check_options(method, options, seed):
    """The keyword options of :func:`learnsim.fitting.fit`, checked, as a :class:`FitOptions`."""
    from .text import check_language, resolve_analysis

    options = dict(options)
    for alias, name in _ALIASES.items():
        if alias in options:
            if name in options:
                raise ValueError(f"give {name} or its alias {alias}, not both")
            options[name] = options.pop(alias)
    unknown = sorted(set(options) - set(_OPTION_METHODS))
    if unknown:
        raise TypeError(f"fit() got unknown option(s) {', '.join(map(repr, unknown))}; the options are "
                        + ", ".join(sorted(set(_OPTION_METHODS) | set(_ALIASES))))
    foreign = sorted(name for name in options if method not in _OPTION_METHODS[name])
    if foreign:
        owners = sorted(set().union(*(_OPTION_METHODS[name] for name in foreign)))
        raise ValueError(f"{' and '.join(foreign)} apply to method {' / '.join(owners)} only, not to method "
                         f"{method!r}")
    get = options.get
    o = FitOptions(random_state=seed)      # the defaults: a keyword not given keeps its field's
    if get("weighting") is not None:
        o.weighting = _check_choice(get("weighting"), "weighting", WEIGHTINGS)
    o.norm = _check_choice(get("norm", o.norm), "norm", ("l2", None))
    o.stop_words = get("stop_words") if get("stop_words") in (None, "auto") else check_language(get("stop_words"), "stop_words")
    o.stem = _check_choice(get("stem"), "stem", (None, True, False))
    analysis = resolve_analysis(get("language"), get("analyzer"),
                                _check_choice(get("cjk_unigrams", o.cjk_unigrams), "cjk_unigrams", (True, False)))
    o.analyzer, o.cjk_unigrams = analysis["analyzer"], analysis["cjk_unigrams"]
    o.language = get("language")
    _check_stem_language(o.language, o.stem, o.stop_words)     # a code of no stemmer: English's Porter stems, said nowhere
    o.unicode_words = _check_choice(get("unicode_words", o.unicode_words), "unicode_words", (True, False))
    if get("lsi") is not None:
        lsi = get("lsi")
        o.lsi = (_check_int(lsi, "lsi", 1) if isinstance(lsi, numbers.Integral) and not isinstance(lsi, bool)
                 else _check_float(lsi, "lsi (a fraction of the vocabulary)", 0.0, 1.0))
    o.paper = _check_choice(get("paper", o.paper), "paper", (True, False))
    # the mcd settings given (n_basis None: the whole feature space); the others are "auto"
    if "n_basis" in options:
        n_basis = get("n_basis")
        o.mcd["n_basis"] = n_basis if n_basis in (None, "auto") else _check_int(n_basis, "n_basis", 1)
    for name, high in (("shrinkage", 1.0), ("complement_weight", None)):
        if name in options:
            value = get(name)
            o.mcd[name] = value if value == "auto" else _check_float(value, name, 0.0, high, closed=True)
    for name, minimum in (("n_components", 1), ("svd_rank", 1), ("max_iter", 0)):
        if get(name) is not None:
            setattr(o, name, _check_int(get(name), name, minimum))
    if get("learning_rate") is not None:
        o.learning_rate = _check_float(get("learning_rate"), "learning_rate", 0.0, None)
    if get("validation_fraction") is not None:
        o.validation_fraction = _check_float(get("validation_fraction"), "validation_fraction", 0.0, 1.0)
    if "baseline_holdout" in options:
        value = get("baseline_holdout")
        o.baseline_holdout = None if value is None else _check_float(value, "baseline_holdout", 0.0, 1.0)
    if get("variant") is not None:
        o.variant = _check_choice(get("variant"), "variant", LINKLEARN_VARIANTS)
    if get("prior") is not None:
        o.prior = _check_choice(get("prior"), "prior", ("zero", "one"))
    if "normalize" in options:
        o.normalize = bool(_check_choice(get("normalize"), "normalize", (True, False)))
    if get("n_documents") is not None:
        o.n_documents = _check_int(get("n_documents"), "n_documents", 1)
    if get("matcher") is not None:
        o.matcher = _check_choice(get("matcher"), "matcher", MATCHER_CHOICES)
    if "rerank" in options:
        o.rerank = _check_choice(get("rerank"), "rerank", (True, False))
    if get("encoder") is not None:
        # norm at its default configures nothing the encoder replaces
        clash = [name for name in _TERM_VECTOR_OPTIONS if get(name) is not None and name in options
                 and not (name == "norm" and get(name) == FitOptions.norm)]
        if clash:
            raise ValueError(f"{' and '.join(clash)} configure the term vectors, which encoder= replaces: drop "
                             f"{' and '.join(clash)} or encoder=")
        o.encoder = _check_encoder(get("encoder"))
    return o


def _check_encoder(encoder):
    """A fitted encoder object as it is, or the encoder a model folder or name loads
    (:func:`learnsim.text.encoders.load_encoder`); a TypeError for anything else."""
    import os

    from .text.encoders import is_encoder, load_encoder

    if is_encoder(encoder):
        return encoder
    if isinstance(encoder, (str, os.PathLike)):
        return load_encoder(encoder)
    raise TypeError("encoder must be the folder or name of a sentence encoder (str or path), or a fitted encoder "
                    f"(transform(texts) -> dense rows, embedding_dim_); got {type(encoder).__name__}")

"""Each constraint and default of a fit is declared in one place, which the library's fit and
``learnsim fit`` (which builds its FitOptions from its flags) both read, and fit()'s docstring
lists what it takes."""
from __future__ import annotations

import numpy as np
import pytest

from learnsim.datasets import make_clustered_corpus


@pytest.fixture(scope="module")
def texts():
    return list(make_clustered_corpus(n_clusters=4, docs_per_cluster=6, random_state=0).data)


def _links(n):
    from learnsim.supervision import Links

    return Links.from_edges(np.array([(0, 1), (2, 3), (4, 5)], dtype=np.int64), n)


def test_learning_rate_with_the_bm25_variant_is_refused_in_options_built_as_the_command_line_does(texts):
    # the command line builds FitOptions from its flags and calls fit_linklearn: the constraint
    # fit() checks holds there too, not a learning rate silently ignored
    from learnsim.fitting import FitOptions, fit_linklearn

    with pytest.raises(ValueError, match="learning_rate applies to variant 'paper' .*only"):
        fit_linklearn(FitOptions(learning_rate=0.1, variant="bm25"), texts, _links(len(texts)), "bm25", {})
    # named as the command line names them
    flags = {"learning_rate": "--learning-rate", "variant": "--variant"}
    with pytest.raises(ValueError, match="--learning-rate applies to --variant paper .*only"):
        fit_linklearn(FitOptions(learning_rate=0.1, variant="bm25"), texts, _links(len(texts)), "bm25", {},
                      flags=flags)
    with pytest.raises(ValueError, match="--variant must be one of paper, bm25; got 'bm26'"):
        fit_linklearn(FitOptions(variant="bm26"), texts, _links(len(texts)), "bm26", {}, flags=flags)


@pytest.mark.parametrize("method", ["mcd", "film", "linklearn", "relative", "adapter"])
def test_fit_s_defaults_are_fit_options_defaults(method):
    # one definition each: fit() with no option gives the FitOptions the command line starts from
    from learnsim.baseline import DEFAULT_HOLDOUT
    from learnsim.fitting import FitOptions

    assert FitOptions.from_keywords(method, {}, 3) == FitOptions(random_state=3)
    assert FitOptions().baseline_holdout == DEFAULT_HOLDOUT


def test_the_pairs_validation_fraction_has_one_default():
    from learnsim.film.recipe import DEFAULT_PAIRS_VALIDATION_FRACTION
    from learnsim.fitting import FitOptions

    assert FitOptions().pairs_validation_fraction == DEFAULT_PAIRS_VALIDATION_FRACTION
    assert FitOptions(validation_fraction=0.3).pairs_validation_fraction == 0.3


def _option_bullets(doc):
    """{option: its bullet's text} of the ``**options`` list of a docstring."""
    import re

    bullets = {}
    for chunk in re.split(r"\n\s*- (?=``)", doc.split("**options", 1)[1].split("Returns\n", 1)[0])[1:]:
        for name in re.findall(r"``(\w+)`` (?:\(|or its alias)", chunk):
            bullets.setdefault(name, " ".join(chunk.split()))
    return bullets


def test_fit_s_docstring_names_every_method_of_each_option():
    # numpydoc: every parameter and method listed; an option's bullet names the methods it applies to
    import inspect
    import re

    from learnsim._fit_options import METHODS, _OPTION_METHODS
    from learnsim.fitting import fit

    doc = inspect.getdoc(fit)
    bullets = _option_bullets(doc)
    missing = sorted(set(_OPTION_METHODS) - set(bullets))
    assert not missing, f"options without a bullet in fit()'s docstring: {missing}"
    def said(name, methods):        # "every method but adapter", or each method named
        but = set(METHODS) - set(methods)
        return len(but) == 1 and f"every method but {min(but)}" in bullets[name]
    unnamed = {name: sorted(m for m in methods if not re.search(rf"\b{m}\b", bullets[name]))
               for name, methods in _OPTION_METHODS.items() if set(methods) != set(METHODS) and not said(name, methods)}
    assert not {k: v for k, v in unnamed.items() if v}, unnamed
    for name in inspect.signature(fit).parameters:
        if name != "options":
            assert re.search(rf"^{name}\b|, {name}\b", doc, re.M), f"parameter {name} not in fit()'s docstring"
    for method in METHODS:
        assert re.search(rf'"{method}"', doc.split("method :", 1)[1].split("random_state :", 1)[0]), method

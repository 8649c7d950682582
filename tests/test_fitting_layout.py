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

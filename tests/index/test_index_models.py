"""Each model the index tests share (tests/index_models.py) really is the family it stands for."""
import pytest

from index_models import FAMILIES, model

EXPECTED = {"mcd": ("MinimumClusterDistortion", "distance"), "film": ("FILM", "cosine"),
            "film_pairs": ("FILM", "cosine"), "relative": ("RelativeComparisonMetric", "distance"),
            "linklearn": ("LinkLearn", "term_weights"), "bm25": ("LearnedBM25", "term_weights")}


@pytest.mark.parametrize("family", FAMILIES)
def test_each_fixture_model_is_the_family_it_stands_for(family):
    p = model(family)
    method, kind = EXPECTED[family]
    assert type(p.metric).__name__ == method
    assert p.scorer.kind == kind
    # only the FILM fitted on pairs has a duplicate rule (and its search mixes two cosines)
    assert (p.matcher is not None) == (family == "film_pairs")
    if family == "film_pairs":
        assert "mixed cosine" in p.scoring

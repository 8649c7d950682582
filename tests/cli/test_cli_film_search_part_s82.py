"""A FILM fit on pairs whose duplicate rule is kept but whose search ends as BM25 said of search
'... so the model falls back to the baseline', read as the whole model: the line now says that
search is the baseline (the newcomer's rough edge of a part read as the whole)."""
from pathlib import Path

from conftest import run_cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_search_line_says_search_falls_back_not_the_model(tmp_path):
    code, out, err = run_cli(["fit", "--method", "film", "--pairs", EXAMPLES / "pairs.tsv",
                              "--model", tmp_path / "pairs.npz"])
    assert code == 0, err
    lines = [line for line in out.splitlines() if line.startswith("Search against the strongest baseline: ")]
    assert len(lines) == 1, out
    assert "Duplicate rule chosen" in out                       # the model has more than its search
    # the README's example: search ends as BM25 (held-out nDCG@10 0.699 against 0.736)
    assert lines[0].endswith("so search is BM25."), lines[0]
    assert "so the model falls back" not in lines[0], lines[0]


def test_the_search_warning_says_search_falls_back_not_the_model(tmp_path):
    """The same fit's warning (stderr) still said '... so the model falls back to the baseline'
    where the model saved keeps its duplicate rule: it says what the line says."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("always")     # as PYTHONWARNINGS=always: a repeat is not hidden
        code, out, err = run_cli(["fit", "--method", "film", "--pairs", EXAMPLES / "pairs.tsv",
                                  "--model", tmp_path / "pairs.npz"])
    assert code == 0, err
    assert "Duplicate rule chosen" in out                       # the model has more than its search
    said = [line for line in err.splitlines() if line.startswith("learnsim: warning: learnsim fit --method film: ")]
    assert len(said) == 1, err
    assert said[0].endswith("so search is BM25"), said[0]
    assert "falls back to the baseline" not in err, err

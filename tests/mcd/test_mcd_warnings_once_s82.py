"""mcd's own check falling back (to Euclid) is said only where mcd's model is the one saved: where
the search check that follows ends the fit as the strongest baseline (the tf.idf cosine or BM25),
that check's warning says so, and mcd's would name a model that is not saved (learnsim fit
--input examples/tickets.jsonl said both)."""
import json
import warnings
from pathlib import Path

from learnsim.exceptions import BaselineWarning
from learnsim.fitting import fit

TICKETS = Path(__file__).resolve().parents[2] / "examples" / "tickets.jsonl"


def _fit(**options):
    rows = [json.loads(line) for line in TICKETS.read_text(encoding="utf-8").splitlines() if line.strip()]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        result = fit([r["text"] for r in rows], clusters=[r["label"] for r in rows], method="mcd", **options)
    return result, [w for w in said if issubclass(w.category, BaselineWarning)]


def test_a_fit_that_ends_as_the_baseline_says_so_once_naming_the_model_saved():
    result, said = _fit()
    assert result.report["model"] != "learned"
    assert len(said) == 1, [str(w.message)[:120] for w in said]
    assert "learnsim fit --method mcd" in str(said[0].message)
    assert not str(said[0].message).startswith("MinimumClusterDistortion")


def test_with_the_checks_off_nothing_is_said():
    result, said = _fit(baseline_holdout=None)
    assert said == []

"""One warning for one cause in a fit from links (:func:`learnsim.fitting.fit_linklearn`).

A weighting that fell back to its own baseline (LinkLearn to the tf.idf cosine, LearnedBM25 to
BM25 at its standard parameters) said so ('LinkLearn: ... so the model falls back to the
baseline'); the search check then measured that baseline against the strongest one, the same
baseline where they agree, and said it again: a gain of exactly 0 and a second '... so the model
falls back to the baseline' for the same model. :func:`said_once` keeps the first.
"""
from __future__ import annotations

import warnings

__all__ = ["said_once"]


def _own_baseline(report):
    """The search check's name of the baseline a weighting falls back to ('cosine', 'bm25'), or None."""
    name = (report or {}).get("baseline") or ""
    if name == "tf.idf cosine":
        return "cosine"
    return "bm25" if name.startswith("Okapi BM25") else None


def said_once(said, summary, owner):
    """Warn again what the fit said (``said``: the warnings recorded while its search was checked),
    without the check's fall-back where the model already was that baseline."""
    from ..baseline import BaselineWarning

    own = summary.get("baseline_gain") or {}
    fallback = _own_baseline(own)
    again = own.get("status") == "baseline" and fallback is not None and summary.get("model") == fallback
    for w in said:
        if again and issubclass(w.category, BaselineWarning) and str(w.message).startswith(f"{owner}: "):
            continue
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)

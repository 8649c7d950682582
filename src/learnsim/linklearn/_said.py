"""One warning for one cause in a fit from links (:func:`learnsim.fitting.fit_linklearn`).

A weighting that fell back to its own baseline (LinkLearn to the tf.idf cosine, LearnedBM25 to
BM25 at its standard parameters) said so ('LinkLearn: ... so the model falls back to the
baseline'); the search check then measured that baseline against the strongest one, the same
baseline where they agree, and said it again: a gain of exactly 0 and a second '... so the model
falls back to the baseline' for the same model. Where the check made the model another baseline
(BM25), the weighting's warning named a model not saved. :func:`said_once` says each once.
"""
from __future__ import annotations

__all__ = ["said_once"]


def _own_baseline(report):
    """The search check's name of the baseline a weighting falls back to ('cosine', 'bm25'), or None."""
    name = (report or {}).get("baseline") or ""
    if name == "tf.idf cosine":
        return "cosine"
    return "bm25" if name.startswith("Okapi BM25") else None


def said_once(said, summary, owner):
    """Warn again what the fit said (``said``: the warnings recorded while it ran), each model's
    fall-back once: without the search check's where the model already was that baseline, and
    without the weighting's where the search check made the model another one (e.g. BM25 where
    LinkLearn fell back to the tf.idf cosine: the weighting's 'so the model falls back to the
    baseline' named a model that is not saved; its report stays in baseline_gain)."""
    from ..baseline._said import fell_back, replay

    own = summary.get("baseline_gain") or {}
    fallback = _own_baseline(own)
    model = summary.get("model")
    again = own.get("status") == "baseline" and fallback is not None and model == fallback
    replaced = model not in (None, "learned", fallback)

    def said_before(w):
        of_search = str(w.message).startswith(f"{owner}: ")
        return fell_back(w) and ((again and of_search) or (replaced and not of_search))
    replay(said, drop=said_before)

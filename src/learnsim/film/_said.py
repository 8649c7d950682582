"""What FILM's fits say of the parts that fall back: one warning for the parts of a model fitted
on graded pairs (:func:`learnsim.fitting.fit_graded`). FILM's own check from clusters is said
only where its model is the one saved (:func:`learnsim._search_checks.said_if_kept`).

The graded learner checks two parts against the input cosine on the same held-out pairs: the
rule that predicts a pair's score ('graded pair rule') and FILM's search weight ('FILM search
(graded pairs)'). Each said '... so the model falls back to the baseline', two lines that read as
the whole model falling back twice; :func:`said_once` says which part is the input cosine, once.
"""
from __future__ import annotations

__all__ = ["said_once", "said_of_search"]

_RULE = "the score rule is the input cosine (mapped to the scores' scale)"
_SEARCH = "search is the input cosine"
_OWNERS = ("graded pair rule: ", "FILM search (graded pairs): ")


def said_once(said, rule_report, search_report):
    """Warn again what the fit said (``said``: the warnings recorded while it chose its rules),
    the fall-backs of the score rule and of search as one warning naming each part."""
    from ..baseline._said import fell_back, replay

    parts = [(what, name, report) for what, name, report in ((_RULE, "score rule", rule_report),
                                                             (_SEARCH, "search", search_report))
             if report is not None and report.fell_back]
    same = [w for w in said if fell_back(w) and str(w.message).startswith(_OWNERS)] if parts else []
    if len(parts) == 1:
        (what, _, report), = parts
        message = f"graded pairs: {report.summary(fallback=what)}"
    else:
        message = (f"graded pairs: neither learned part beats the input cosine on the held-out pairs, so {_RULE} "
                   f"and {_SEARCH}: " + "; ".join(f"{name}: {report.summary(fallback='')}"
                                                  for _, name, report in parts))
    replay(said, merged=[(same, message)])


def said_of_search(said, report, owner, part):
    """Warn again what FILM's search check on pairs said (``said``), its fall-back ('... so the
    model falls back to the baseline') as 'so search is BM25' where the model saved keeps
    another part (``part``: a duplicate rule), as learnsim fit's line on search says
    (:meth:`learnsim.baseline.BaselineGain.summary`'s ``fallback``)."""
    from ..baseline._said import fell_back, replay

    same = message = None
    if part and report is not None and report.fell_back:
        whole = f"{owner}: {report.summary()}"
        same = [w for w in said if fell_back(w) and str(w.message) == whole][:1]
        message = f"{owner}: {report.summary(fallback=f'search is {report.baseline}')}"
    replay(said, merged=[(same, message)])

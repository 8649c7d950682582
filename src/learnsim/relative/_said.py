"""One warning for one cause in a fit from relative comparisons (:func:`learnsim.fitting.fit_relative`).

Every check of such a fit scores the same held-out anchors: against W = 1 on their triplets
(:mod:`learnsim.relative.recipe`), against the strongest lexical baseline on the same triplets and
as search (:func:`learnsim._search_checks.checked_relative_search`). Where the anchors are too few
for any check to tell a gain from chance (fewer than six), each check fell back for that one reason
and said so ('... so the model falls back to the baseline', three times, the first naming W = 1
where the model saved is BM25). :func:`said_once` makes them one warning that names every check
and the model saved; and where the search check made the model a baseline, it leaves out the check
against W = 1, whose fall-back named W = 1, a model not saved. Where the held-out triplets and then
search both made the model that baseline (BM25), each said so: one warning names both.
"""
from __future__ import annotations

__all__ = ["said_once"]

_TOO_FEW = "too few to tell a gain"
_CHECKS = ("baseline_gain", "triplet_baseline_gain", "search_baseline_gain")


def _scored(name, report):
    """One check in a few words: its baseline, what it scored, learned against baseline."""
    measure = report["measure"].split(" (")[0]      # "triplet accuracy (mean per anchor, ...)"
    where = {"baseline_gain": "", "triplet_baseline_gain": " on the held-out triplets",
             "search_baseline_gain": " as search"}[name]
    if name == "search_baseline_gain":     # its units are queries, the others' the anchors named first
        measure += f" on {report['n_units']} {report['unit']}"
    return (f"{report['baseline']}{where} ({measure}: learned {report['learned_score']:.4f}, baseline "
            f"{report['baseline_score']:.4f})")


def _model_saved(summary):
    from ..baseline import BASELINE_TITLES

    model = summary.get("model")
    if model == "W = 1":
        return (summary.get("baseline_gain") or {}).get("baseline") or "W = 1"
    if model == "learned":
        return "the learned weights"
    return f"{BASELINE_TITLES.get(model, model)}, the strongest baseline"


def said_once(said, summary, owner):
    """Warn again what the fit said (``said``: the warnings recorded while it ran), the checks
    that fell back for too few held-out anchors as one warning (where more than one did)."""
    from ..baseline._said import fell_back, replay

    def too_few(w):
        return fell_back(w) and _TOO_FEW in str(w.message)

    own = (summary.get("baseline_gain") or {}).get("baseline")
    replaced = summary.get("model") not in (None, "learned", "W = 1")

    def of_w1(w):
        # the check against W = 1: where the search check made the model a baseline (BM25), its
        # 'so the model falls back to the baseline' named W = 1, a model not saved (the report keeps it)
        return replaced and own and fell_back(w) and f"baseline ({own})" in str(w.message)

    same = [w for w in said if too_few(w)]
    reports = [(name, summary.get(name) or {}) for name in _CHECKS]
    reports = [(name, r) for name, r in reports
               if r.get("status") == "baseline" and _TOO_FEW in (r.get("reason") or "")]
    if len(same) < 2 or len(reports) < 2:
        same = []
    message = None
    if same:
        first = reports[0][1]
        need = first["reason"].split("(at least ", 1)[-1].split(")", 1)[0].split(";", 1)[0]
        message = (f"{owner}: only {first['n_units']} {first['unit']} scored: too few to tell a gain from "
                   f"chance (at least {need}) over " + ", ".join(_scored(*check) for check in reports)
                   + f"; the model saved is {_model_saved(summary)}")
    else:
        same, message = _both_fell_back(said, summary, owner)
    replay(said, drop=of_w1, merged=[(same, message)])


def _both_fell_back(said, summary, owner):
    """(the two warnings, the one message) where the held-out triplets and then search both fell
    back and the model saved is the search check's baseline (BM25, say): each said '... so the
    model falls back to the baseline' of the one model, two lines of one cause; ([], None) else."""
    from ..baseline import BaselineGain
    from ..baseline._said import fell_back

    if summary.get("model") in (None, "learned", "W = 1"):
        return [], None
    checks = [summary.get(name) or {} for name in ("search_baseline_gain", "triplet_baseline_gain")]
    if any(r.get("status") != "baseline" for r in checks):
        return [], None
    # each check's warning opens with what it scored (learnsim.baseline.compare, check_search) and
    # names its baseline (the check against W = 1 scores the same triplets, against W = 1)
    marks = [(f"{owner}: {r['measure']} on {r['n_units']} {r['unit']}", f"baseline ({r['baseline']}") for r in checks]
    found = [[w for w in said if fell_back(w) and str(w.message).startswith(head) and baseline in str(w.message)]
             for head, baseline in marks]
    if any(len(ws) != 1 for ws in found):
        return [], None
    search, triplets = (BaselineGain.from_dict(r).summary(fallback="") for r in checks)
    message = (f"{owner}: the learned weights beat the strongest baseline neither as search nor on the held-out "
               f"triplets; the model saved is {_model_saved(summary)}: as search, {search}; on the held-out "
               f"triplets, {triplets}")
    return [w for w in said if any(w is ws[0] for ws in found)], message

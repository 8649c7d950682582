"""Learning from use (issue 34): the click log of a served index (:class:`FeedbackLog`,
``learnsim serve --learn-from-clicks``) and the relative comparisons a refit learns from
(:func:`click_comparisons`: paper 004's "clicked documents are closer to the query than the ones
skipped", with inverse propensity weights for the position bias, or Joachims' pairs), the refit
from them (:func:`fit_clicks`, checked on held-out searches), and the evidence a candidate model needs
before it serves (:func:`team_draft` interleaving, :func:`promotion_evidence`).
"""
# The names load on first use (learnsim._utils.lazy): the service imports the log alone.
from .._utils.lazy import attach

__all__ = ["FeedbackLog", "FEEDBACK_FILE", "click_comparisons", "click_judgements", "team_draft", "interleaving_outcome",
           "interleaving_verdict", "heldout_click_verdict", "interleaved_model", "promotion_evidence", "fit_clicks",
           "CLICK_DEFAULTS", "click_supervision", "ClickSupervision"]

__getattr__, __dir__ = attach(__name__, {"FeedbackLog": "._log", "FEEDBACK_FILE": "._log",
                                         "click_comparisons": "._clicks", "click_judgements": "._clicks", "team_draft": "._interleave",
                                         "interleaving_outcome": "._interleave",
                                         "interleaving_verdict": "._interleave",
                                         "heldout_click_verdict": "._compare", "interleaved_model": "._compare",
                                         "promotion_evidence": "._compare", "fit_clicks": "._fit",
                                         "CLICK_DEFAULTS": "._fit", "click_supervision": "._fit",
                                         "ClickSupervision": "._fit"})

"""Learning from use (issue 34): the click log of a served index (:class:`FeedbackLog`,
``learnsim serve --learn-from-clicks``) and the relative comparisons a refit learns from
(:func:`click_comparisons`: paper 004's "clicked documents are closer to the query than the ones
skipped", with Joachims' position-bias-robust pairs).
"""
# The names load on first use (learnsim._utils.lazy): the service imports the log alone.
from .._utils.lazy import attach

__all__ = ["FeedbackLog", "FEEDBACK_FILE", "click_comparisons"]

__getattr__, __dir__ = attach(__name__, {"FeedbackLog": "._log", "FEEDBACK_FILE": "._log",
                                         "click_comparisons": "._clicks"})

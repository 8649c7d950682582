"""Warnings at the user's line of code, however deep in learnsim they are raised."""
from __future__ import annotations

import os
import sys
import warnings

__all__ = ["warn_outside"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn_outside(message, category=UserWarning, stacklevel=1):
    """``warnings.warn(message, category, stacklevel)``, moved further out to the first frame
    outside learnsim where that one is learnsim's own.

    A hand-counted ``stacklevel`` reaches the user's line from the estimator's ``fit`` it was
    counted for; reached through ``learnsim.fit`` (three to six calls deeper) it named a line of
    learnsim's instead (``fitting.py:474: BaselineWarning: ...`` under a line of learnsim's
    source), and every such warning of a fit named a different one. Where every frame is
    learnsim's (its command line), ``stacklevel`` as given.
    """
    level = stacklevel + 1              # as warnings.warn counts from here: this frame is 1
    try:
        frame = sys._getframe(level - 1)
    except ValueError:                  # a stack shallower than stacklevel: as warnings.warn takes it
        frame = None
    found = level
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, found = frame.f_back, found + 1
    warnings.warn(message, category, stacklevel=level if frame is None else found)

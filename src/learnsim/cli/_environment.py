"""The environment variables of the progress display, checked where the command line starts.

LEARNSIM_PROGRESS=maybe turned progress on as 1 does, and LEARNSIM_PROGRESS_AFTER=soon was
dropped for the default wait, each without a word. As with the other LEARNSIM_* variables (the
library reads them too, where ending the process is not its to do) the command runs: a value not
understood is one note on stderr saying what is done with it."""
from __future__ import annotations

import math
import os

from .._utils.progress import AFTER
from ._common import _note

# what learnsim._utils.progress reads as off; anything else there is on
_OFF = ("0", "", "false", "no", "off")
_ON = ("1", "true", "yes", "on")


def note_unknown_progress_values():
    flag = os.environ.get("LEARNSIM_PROGRESS")
    if flag is not None and flag.strip().lower() not in _OFF + _ON:
        _note(f"note: LEARNSIM_PROGRESS={flag!r} is not 1 or 0 (nor true/false, yes/no, on/off): progress is "
              "shown, as with 1")
    after = os.environ.get("LEARNSIM_PROGRESS_AFTER")
    if after:
        try:
            seconds = float(after)
        except ValueError:
            _note(f"note: LEARNSIM_PROGRESS_AFTER={after!r} is not a number of seconds: it is ignored (work "
                  f"says how it goes once it has run {AFTER:g} s)")
            return
        if math.isnan(seconds):
            # (max(0, nan) is 0 where the library reads it)
            _note(f"note: LEARNSIM_PROGRESS_AFTER={after!r} is not a number of seconds: it is read as 0 (work "
                  "says how it goes at once)")

"""The index's .npy files written (:func:`save_npy`) with a refusal of the disk said as one.
Only numpy and the standard library are imported here."""
from __future__ import annotations

import errno
import re

import numpy as np

# numpy's short write of an array ("6288 requested and 5104 written"): an OSError with no number
_SHORT_WRITE = re.compile(r"\d+ requested and \d+ written")


def save_npy(path, arr):
    """``np.save(path, arr, allow_pickle=False)``; a write the disk takes only part of (a full
    disk, a file-size limit) is an OSError numbered ENOSPC naming ``path``: numpy's own has no
    number, which the command line took for a bug (a traceback) and the service for one (500)."""
    try:
        np.save(path, arr, allow_pickle=False)
    except OSError as exc:
        if exc.errno is None and _SHORT_WRITE.fullmatch(str(exc)):
            raise OSError(errno.ENOSPC, f"the disk took part of a write ({exc} bytes): it is full, or the file "
                                        "would pass the size limit of files here", str(path)) from None
        raise
